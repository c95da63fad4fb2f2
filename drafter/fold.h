// Folding candidates into the grants of a draft (docs/learn-rules.md,
// rules 3 and 5).
//
//   - A directory only looked at, with something granted below it (by the
//     draft or the current policy), is on the way: bwrap creates it for the
//     mount below, so it is listed, not granted.
//   - Nothing is granted inside another grant that already gives it: a path
//     below a draft grant of at least its access joins that grant, its
//     operations kept. A write below a read grant stays a grant of its own
//     (a writable mount inside a read-only one).
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "drafter/needs.h"

namespace cordon::drafter {

struct Folded {
  std::string path;
  Need access = Need::kRead;
  size_t context = 0;
  std::vector<Source> sources;  // the names whose needs it meets, itself included
  std::vector<std::string> notes;
};

struct FoldResult {
  std::vector<Folded> grants;  // sorted by path
  std::vector<std::string> passed_through;
};

FoldResult fold(std::vector<Candidate> candidates, const std::deque<Context>& contexts);

}  // namespace cordon::drafter
