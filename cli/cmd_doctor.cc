// `cordon doctor [--json]`: what this host gives cordon, one line per item.
// Exit 0 when learn and run can work, 125 when a required item is missing.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "enforcer/doctor.h"
#include "util/json.h"

namespace cordon::cli {

namespace {

using enforcer::Check;
using util::json_string;

void print_text(const std::vector<Check>& checks) {
  for (const auto& c : checks) {
    std::string line =
        fmt::format("{:<9} {:<21} {}", enforcer::state_name(c.state), c.name, c.detail);
    if (!c.fix.empty()) line += "  [fix: " + c.fix + "]";
    fmt::print("{}\n", line);
  }
}

void print_json(const std::vector<Check>& checks, bool ready) {
  std::string items;
  for (const auto& c : checks) {
    items += fmt::format(
        "{}\n    {{\"name\": {}, \"state\": {}, \"required\": {}, \"detail\": {}, \"fix\": {}}}",
        items.empty() ? "" : ",", json_string(c.name), json_string(enforcer::state_name(c.state)),
        c.required ? "true" : "false", json_string(c.detail),
        c.fix.empty() ? "null" : json_string(c.fix));
  }
  fmt::print("{{\n  \"ready\": {},\n  \"checks\": [{}\n  ]\n}}\n", ready ? "true" : "false", items);
}

}  // namespace

int cmd_doctor(const std::vector<std::string>& args) {
  bool json = args.size() == 1 && args[0] == "--json";
  if (!args.empty() && !json) {
    report("doctor: usage: cordon doctor [--json]");
    return kUsage;
  }
  auto checks = enforcer::run_checks();
  bool ready = enforcer::ready(checks);
  if (json) {
    print_json(checks, ready);
  } else {
    print_text(checks);
  }
  return ready ? kOk : kCordonFailed;
}

}  // namespace cordon::cli
