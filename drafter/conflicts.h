// ConflictSet: where the draft and the current policy cannot both hold, one
// entry per rule of the current policy, with a few of the paths involved.
//
// A draft cannot edit another fragment, so each entry says what fails while
// that rule stands (docs/learn-rules.md, rule 4).
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "drafter/current_policy.h"
#include "drafter/drafter.h"

namespace cordon::drafter {

class ConflictSet {
 public:
  // A deny covers a path the trace used (or looked for).
  void denied(const schema::Rule& rule, const std::string& layer, const std::string& path,
              const std::string& acts);
  // deny_write keeps read-only a path the trace wrote.
  void read_only(const schema::Rule& rule, const std::string& layer, const std::string& path,
                 const std::string& acts);
  // The trace renamed over, removed or hard-linked from a path that is a
  // mount of its own.
  void own_mount(const schema::Rule& rule, const std::string& layer, const std::string& path,
                 const std::string& acts);
  // A grant of the current policy sits inside a writable directory the
  // draft grants: it stays a separate mount.
  void inside_write(const schema::Rule& rule, const std::string& layer,
                    const std::string& draft_grant);

  // Sorted by rule path, then origin.
  std::vector<Conflict> take() const;

 private:
  enum class Kind { kDenied, kReadOnly, kOwnMount, kInsideWrite };
  struct Entry {
    schema::Rule rule;
    std::string layer;
    // The first few paths in byte order (so the entry does not depend on
    // the order names were met) and their text.
    std::vector<std::pair<std::string, std::string>> examples;
    int64_t count = 0;
  };
  void add(Kind kind, const schema::Rule& rule, const std::string& layer, const std::string& path,
           const std::string& text);
  std::map<std::tuple<std::string, std::string, int, int, Kind>, Entry> entries_;
};

}  // namespace cordon::drafter
