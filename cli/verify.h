// `cordon learn --verify`: re-run the learned command under the current
// policy plus its draft, audited, and say whether the draft was complete.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cordon::cli {

struct VerifyInput {
  std::string learn_trace;  // the learn run's trace
  int64_t learn_run = 0;
  int learn_exit = 0;
  std::string draft;                        // the drafted fragment, a policy file
  std::vector<std::string> policies;        // --policy layers of the learn
  std::vector<std::string> command;         // what to re-run
  std::optional<std::string> dns_upstream;  // learn's --dns-upstream, if given
};

// A file beside a trace: its name without ".db", then `suffix`
// ("t.db" → "t.draft.sbx", "t-verify.db").
std::string beside_trace(const std::string& trace, const std::string& suffix);

// Returns kOk when nothing the learn run did was denied, kIncompleteDraft
// (after naming each such denial) when something was, or cordon's failure
// code. Denials of things the learn run never did are reported, not failed
// on: the command took another path this time.
int verify_draft(const VerifyInput& input);

}  // namespace cordon::cli
