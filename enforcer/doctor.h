// `cordon doctor`: every host requirement and capability cordon depends on,
// each checked by trying it where that can be done unprivileged, with what
// to do about it. Checks that need bwrap run it (about a second in all).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cordon::enforcer {

enum class State {
  kOk,        // present
  kDegraded,  // absent, and cordon works around it with less (said in detail)
  kMissing,   // absent; if required, learn or run cannot work
  kUnknown,   // could not be determined from here (said in detail)
};

// "ok", "degraded", "missing", "unknown".
std::string_view state_name(State state);

struct Check {
  std::string name;  // stable identifier, e.g. "bwrap", "seccomp-notify"
  State state = State::kUnknown;
  bool required = false;  // learn or run cannot work unless it is ok or degraded
  std::string detail;     // what was found, one line
  std::string fix;        // what to do, one line; empty when nothing is needed
};

// Runs every check, in a fixed order. Re-probes the bwrap grade (refreshing
// its cache). Forks helpers, one of which runs libseccomp after fork, so call
// it before starting threads.
std::vector<Check> run_checks();

// True when no required check is missing or unknown.
bool ready(const std::vector<Check>& checks);

}  // namespace cordon::enforcer
