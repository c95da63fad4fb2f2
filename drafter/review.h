// What a person must decide before a draft is applied (docs/learn-rules.md,
// rule 7). A draft never grants these silently: each is a REVIEW line, and
// the broadest are written as commented-out rules that a person enables.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "drafter/drafter.h"

namespace cordon::drafter {

class Reviewer {
 public:
  // `home` is the run's home; one that is empty, relative or "/" names
  // nothing below it.
  explicit Reviewer(const std::string& home);

  // Fills grant.review and grant.commented_out.
  void review(Grant& grant) const;

  // Why writing `path` needs review: a file that runs code on the host later
  // (git hooks and config, .envrc, editor settings, shell startup files) or
  // that widens cordon's own next policy; nullopt when none of these.
  std::optional<std::string> runs_code_later(std::string_view path) const;

  // `path` with the run's home written "~".
  std::string home_form(const std::string& path) const;

 private:
  // The first of `list` that `path` is at or below (inside) or that lies
  // below `path`; nullptr when none.
  const std::string* match(std::string_view path, const std::vector<std::string>& list,
                           bool& inside) const;
  std::string shown(const std::string& path) const;

  std::string home_;  // empty when unusable
  std::vector<std::string> credentials_, shell_startup_;
  std::string cordon_config_;
};

}  // namespace cordon::drafter
