#include "cli/draft_output.h"

#include <fmt/format.h>

#include <cstdio>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/policy_layers.h"
#include "drafter/drafter.h"
#include "util/path.h"

namespace cordon::cli {
namespace {

bool write_file(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return false;
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  return std::fclose(f) == 0 && ok;
}

}  // namespace

int emit_draft(const std::vector<std::string>& traces, const std::vector<std::string>& policy_files,
               bool json, const std::string& output) {
  // "." and "~" of each layer are the traced run's, not ours: the fragment
  // is for running that command where it ran.
  auto loader = [&](const std::string& cwd, const std::string& home) {
    return schema::load_layers(layer_sources(cwd, home, policy_files));
  };
  auto draft = drafter::draft_traces(traces, loader);
  if (!draft) {
    report(draft.error().message);
    return kCordonFailed;
  }
  const std::string text = json ? drafter::format_json(*draft) : drafter::format_text(*draft);
  if (output.empty()) {
    fmt::print("{}", text);
    if (std::fflush(stdout) == 0) return kOk;
    report(util::sys_error("draft: stdout").message);
    return kCordonFailed;
  }
  if (!write_file(output, text)) {
    report(util::sys_error(util::printable(output) + ": cannot write").message);
    return kCordonFailed;
  }
  return kOk;
}

}  // namespace cordon::cli
