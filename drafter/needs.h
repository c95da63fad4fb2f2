// From what happened to each name to what must be granted where.
//
// For one context (runs sharing a working directory and home, so one current
// policy) this turns the collected acts into needs: read or write of a name
// in place, or write of the directory that holds names added or dropped. A
// name the run made itself needs nothing of its own: its needs move up to
// the nearest directory that existed before. Needs the current policy meets
// are dropped here; the rest are candidates for grants (docs/learn-rules.md,
// rules 1, 2, 4 and 5).
#pragma once

#include <string>
#include <vector>

#include "drafter/collector.h"
#include "drafter/conflicts.h"
#include "drafter/drafter.h"
#include "schema/policy/effective.h"

namespace cordon::drafter {

// Runs that share a working directory and home, and so one current policy.
struct Context {
  schema::EffectivePolicy policy;
  Collector collector;
};

// A name whose acts a need serves (pointers into a Collector).
struct Source {
  const std::string* path = nullptr;
  const PathInfo* info = nullptr;
};

struct Candidate {
  std::string path;
  Need access = Need::kRead;
  bool look_only = true;  // only looked at: "on the way" if something below is granted
  size_t context = 0;
  std::vector<Source> sources;
  std::vector<std::string> notes;
};

struct Needs {
  std::vector<Candidate> candidates;
  std::vector<Source> not_found;  // absent under the current policy too
  std::vector<ReviewItem> review;
  int64_t private_tmp = 0;  // names made or dropped directly in /tmp
};

void derive_needs(const Context& context, size_t index, Needs& out, ConflictSet& conflicts);

}  // namespace cordon::drafter
