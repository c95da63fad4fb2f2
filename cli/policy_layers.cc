#include "cli/policy_layers.h"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>

namespace cordon::cli {

std::string invoking_home() {
  const char* home = std::getenv("HOME");
  if (home && home[0] == '/') return home;
  if (const passwd* pw = ::getpwuid(::getuid()); pw && pw->pw_dir && pw->pw_dir[0] == '/')
    return pw->pw_dir;
  return "/";
}

std::string current_dir() {
  std::unique_ptr<char, decltype(&std::free)> cwd(::getcwd(nullptr, 0), &std::free);
  return cwd ? std::string(cwd.get()) : std::string();
}

schema::LayerSources layer_sources(const std::string& cwd, const std::string& home,
                                   const std::vector<std::string>& policy_files) {
  schema::LayerSources s;
  s.cwd = cwd;
  s.home = home;
  // Where the user layer lives is the invoking user's business, whatever
  // home the policy's "~" stands for.
  s.user_file = schema::user_policy_path(std::getenv("XDG_CONFIG_HOME"), invoking_home());
  s.policy_files = policy_files;
  return s;
}

}  // namespace cordon::cli
