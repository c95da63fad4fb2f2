// Auditor: decides which calls an enforced sandbox refused, for
// `cordon run --audit`.
//
// The sandbox's mounts are the policy made concrete, and they are same-path
// binds of the host: a name the sandbox lacks but the host has was left out
// by the policy (ENOENT), and a write under a mount that is read-only in the
// sandbox but not on the host was refused by it (EROFS). Comparing the two
// views of each path measures what was mounted rather than re-deriving it from
// the policy text, so the verdicts match what the command actually got.
//
// The verdict is taken after the call was let through, from state the call
// cannot change (mount flags, names the sandbox cannot reach), except the
// "existed" fact, which the decoder took before the call.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "schema/trace_db.h"

namespace cordon::tracer {

struct AuditScope {
  // With a network proxy, refused connections are the proxy's to record (it
  // knows names); without one, every connection to a non-loopback address
  // fails with ENETUNREACH and is recorded here.
  bool network_proxied = false;
  // Files the sandbox replaced with an empty read-only stand-in (a denied
  // file): reading one fails nothing, so only this list tells it apart.
  std::vector<std::string> stand_ins;
};

class Auditor {
 public:
  explicit Auditor(AuditScope scope)
      : scope_(scope), stand_ins_(scope_.stand_ins.begin(), scope_.stand_ins.end()) {}

  // Sets `event.error` and returns true when the sandbox refused the call;
  // a read of a stand-in is recorded with error 0 (it worked, on an empty
  // file). `task_root` is the task's root directory (/proc/<pid>/root).
  bool judge(schema::EventRecord& event, int task_root) const;

 private:
  AuditScope scope_;
  std::set<std::string> stand_ins_;
};

}  // namespace cordon::tracer
