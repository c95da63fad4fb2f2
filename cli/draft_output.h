// Drafting and printing a fragment, shared by `cordon draft` and
// `cordon learn`.
#pragma once

#include <string>
#include <vector>

namespace cordon::cli {

// Drafts `traces` against the layers (base, user, workspace of each run's
// cwd, then `policy_files`) and writes the text (or JSON) to `output`, or to
// stdout when it is empty. Returns an exit code: kOk, or kCordonFailed after
// reporting why.
int emit_draft(const std::vector<std::string>& traces, const std::vector<std::string>& policy_files,
               bool json, const std::string& output);

}  // namespace cordon::cli
