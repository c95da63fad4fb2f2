// Exit codes shared by every subcommand. A traced or confined command's own
// status passes through unchanged (128+N when it was killed by signal N); the
// codes below are cordon's own and are documented in docs/troubleshooting.md.
#pragma once

namespace cordon::cli {

inline constexpr int kOk = 0;
inline constexpr int kDiffers = 1;  // `diff`: the policies differ
inline constexpr int kUsage = 2;    // bad command line
// `learn --verify`: the draft did not cover what the learn run did.
inline constexpr int kIncompleteDraft = 3;
inline constexpr int kTimeout = 124;       // --timeout expired
inline constexpr int kCordonFailed = 125;  // cordon itself failed
inline constexpr int kNotExecutable = 126;
inline constexpr int kNotFound = 127;

}  // namespace cordon::cli
