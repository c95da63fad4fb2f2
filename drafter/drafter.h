// cordon::drafter — traces to a reviewable policy fragment, and policies
// compared by what they cover.
//
// Public surface of the component. The rules a draft follows are in
// docs/learn-rules.md; this header states the contracts:
//   - a draft grants only what the current policy does not already grant;
//   - its text always parses with the policy parser (everything that is not
//     a rule is a comment);
//   - it is deterministic: the same traces and policy give the same bytes;
//   - events are streamed from the trace, never all held in memory.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "schema/policy/effective.h"
#include "schema/policy/model.h"
#include "util/result.h"

namespace cordon::drafter {

struct RunRef {
  std::string trace;  // file, as named
  int64_t run_id = 0;
  std::vector<std::string> argv;
  std::string cwd, home, state;
  std::optional<int64_t> exit_code;
};

// How often an operation was seen and the first event that did it.
struct OpCount {
  std::string op;
  int64_t count = 0;
  size_t run = 0;  // index into Draft::runs
  int64_t first_seq = 0;
};

struct PathOps {
  std::string path;
  std::vector<OpCount> ops;
};

enum class Access { kRead, kWrite };

struct Grant {
  Access access = Access::kRead;
  std::string path;             // absolute
  std::string written;          // as the fragment spells it: "~/..." under the run's home
  std::vector<OpCount> ops;     // summed over the path and every name it covers
  std::vector<PathOps> covers;  // names below it whose needs it meets, sorted
  std::vector<std::string> notes;
  std::vector<std::string> review;  // non-empty: flagged for review
  // Too broad to apply unread (/, $HOME, a credential store, writing shell
  // startup files): the rule is written as a comment a person must enable.
  bool commented_out = false;
};

struct NetGrant {
  std::string kind;   // "allow_tcp" or "allow_udp"
  std::string value;  // "NAME:PORT" or "ADDR:PORT"
  OpCount seen;
  std::vector<std::string> review;
};

struct Conflict {
  std::string path;
  std::string rule;    // "allow_read \"/x\""
  std::string origin;  // "FILE:LINE"
  std::string layer;
  std::string what;  // what fails, and what applying the draft involves
};

struct ReviewItem {
  std::string path;  // or destination
  std::string reason;
  bool operator<(const ReviewItem& o) const {
    return path != o.path ? path < o.path : reason < o.reason;
  }
  bool operator==(const ReviewItem&) const = default;
};

struct Endpoint {
  std::string address;
  int64_t count = 0;
};

struct Draft {
  std::vector<RunRef> runs;
  std::vector<Grant> grants;  // sorted by path
  std::vector<NetGrant> net;  // sorted by value
  std::vector<Conflict> conflicts;
  std::vector<ReviewItem> review;           // every flag, grants' included
  std::vector<std::string> passed_through;  // directories only on the way
  std::vector<PathOps> not_found;           // never existed, never created
  std::vector<Endpoint> loopback;
  std::vector<Endpoint> abstract_sockets;
  std::vector<std::string> notes;  // one line each: counts of what was left out
};

// The current policy a run is measured against: its layers evaluated with
// the run's working directory and home (taken from the trace, not from the
// environment of whoever drafts).
using PolicyLoader = std::function<util::Result<schema::EffectivePolicy>(const std::string& cwd,
                                                                         const std::string& home)>;

// Every run of every file, in the order given.
util::Result<Draft> draft_traces(const std::vector<std::string>& trace_files,
                                 const PolicyLoader& current_policy);

std::string format_text(const Draft& draft);
std::string format_json(const Draft& draft);

// ---- cordon diff ----

struct DiffEntry {
  std::string change;  // "added", "removed", "widened", "narrowed"
  std::string rule;    // kind and value, as the policy spells it
  std::string origin;  // FILE:LINE of the rule in the file it is in
  std::string detail;  // what it now covers or no longer covers
};

struct PolicyDiff {
  std::vector<DiffEntry> grants, denies, net, env;
  bool equivalent() const { return grants.empty() && denies.empty() && net.empty() && env.empty(); }
};

// By coverage, not text: a rule that only restates what the other policy
// already covers is no change.
PolicyDiff diff_policies(const schema::Policy& old_policy, const schema::Policy& new_policy);
std::string format_diff_text(const PolicyDiff& diff, bool color);
std::string format_diff_json(const PolicyDiff& diff);

}  // namespace cordon::drafter
