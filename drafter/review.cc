#include "drafter/review.h"

#include <fmt/core.h>

#include <array>

#include "schema/policy/policy.h"
#include "util/path.h"

namespace cordon::drafter {
namespace {

// Below the home: stores of credentials and tokens.
constexpr std::array kCredentials = {
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".config/gh",
    ".kube",
    ".docker",
    ".netrc",
    ".git-credentials",
    ".password-store",
    ".pgpass",
    ".npmrc",
    ".pypirc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
};

// Below the home: read by a shell at every start, so writing one runs code
// in every later shell.
constexpr std::array kShellStartup = {
    ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",     ".zshrc",
    ".zshenv", ".zprofile",     ".zlogin",     ".zlogout",     ".config/fish",
};

bool has_component_pair(std::string_view path, std::string_view needle) {
  for (size_t at = path.find(needle); at != std::string_view::npos;
       at = path.find(needle, at + 1)) {
    size_t end = at + needle.size();
    if (end == path.size() || path[end] == '/') return true;
  }
  return false;
}

std::string_view basename(std::string_view path) {
  return path.substr(path.rfind('/') + 1);
}

}  // namespace

Reviewer::Reviewer(const std::string& home) {
  if (home.empty() || home.front() != '/' || home == "/") return;
  home_ = util::clean_path(home);
  for (std::string_view rel : kCredentials) credentials_.push_back(util::join_path(home_, rel));
  for (std::string_view rel : kShellStartup) shell_startup_.push_back(util::join_path(home_, rel));
  cordon_config_ = util::join_path(home_, ".config/cordon");
}

std::string Reviewer::home_form(const std::string& path) const {
  if (home_.empty() || !util::path_within(path, home_)) return path;
  return path.size() == home_.size() ? "~" : "~" + path.substr(home_.size());
}

std::string Reviewer::shown(const std::string& path) const {
  return schema::quote_policy_string(home_form(path));
}

const std::string* Reviewer::match(std::string_view path, const std::vector<std::string>& list,
                                   bool& inside) const {
  for (const std::string& full : list) {
    if (util::path_within(path, full)) {
      inside = true;
      return &full;
    }
    if (util::path_within(full, path)) {
      inside = false;
      return &full;
    }
  }
  return nullptr;
}

std::optional<std::string> Reviewer::runs_code_later(std::string_view path) const {
  if (has_component_pair(path, "/.git/hooks"))
    return "a git hook: git runs it later, outside any sandbox";
  if (path.ends_with("/.git/config")) {
    return "the git config, whose core.hooksPath or core.fsmonitor makes git run code later";
  }
  std::string_view base = basename(path);
  if (base == ".envrc") return "a direnv .envrc: the shell runs it on entering the directory";
  if (base == ".vscode" || path.find("/.vscode/") != std::string_view::npos) {
    return "editor settings (.vscode) that can run tasks and tools on the host";
  }
  if (base == ".cordon.sbx")
    return "a cordon workspace policy: it decides what the next run may do";
  if (home_.empty()) return std::nullopt;
  bool inside = false;
  const std::string* hit = match(path, shell_startup_, inside);
  if (hit && inside)
    return fmt::format("a shell startup file ({}): every later shell runs it", shown(*hit));
  if (util::path_within(path, cordon_config_))
    return "cordon's user policy: it decides what every later run may do";
  return std::nullopt;
}

void Reviewer::review(Grant& g) const {
  const bool write = g.access == Access::kWrite;
  auto flag = [&](std::string reason, bool comment_out) {
    g.review.push_back(std::move(reason));
    g.commented_out = g.commented_out || comment_out;
  };
  if (g.path == "/") {
    flag("a grant on / gives the whole filesystem", true);
    return;
  }
  if (!home_.empty() && g.path == home_) {
    flag("a grant on the home directory itself gives every file in it", true);
    return;
  }
  bool inside = false;
  if (const std::string* cred = match(g.path, credentials_, inside)) {
    if (inside) {
      flag(fmt::format("a credential store ({})", shown(*cred)), true);
    } else {
      flag(fmt::format("covers the credential store {}", shown(*cred)), false);
    }
  }
  if (const std::string* startup = match(g.path, shell_startup_, inside)) {
    flag(fmt::format("{} the shell startup file {}", inside ? "is" : "covers", shown(*startup)),
         write);
  }
  if (g.path.find('/', 1) == std::string::npos) flag("a whole top-level directory", false);
  if (write && (util::path_within(g.path, "/etc") || util::path_within(g.path, "/usr"))) {
    flag(fmt::format("a write under {}", util::path_within(g.path, "/etc") ? "/etc" : "/usr"),
         false);
  }
  if (write) {
    if (auto why = runs_code_later(g.path)) flag("writes " + *why, false);
  }
}

}  // namespace cordon::drafter
