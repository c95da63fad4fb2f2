#include "cli/policy_layers.h"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>

#include "cli/commands.h"

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

std::optional<schema::EffectivePolicy> current_policy(const std::string& name,
                                                      const cxxopts::ParseResult& parsed,
                                                      std::string& cwd, bool workspace) {
  cwd = current_dir();
  if (cwd.empty()) {
    report(util::sys_error(name + ": getcwd").message);
    return std::nullopt;
  }
  std::vector<std::string> policies;
  if (parsed.count("policy")) policies = parsed["policy"].as<std::vector<std::string>>();
  schema::LayerSources sources = layer_sources(cwd, invoking_home(), policies);
  sources.workspace = workspace;
  auto policy = schema::load_layers(sources);
  if (!policy) {
    report(policy.error().message);
    return std::nullopt;
  }
  return std::move(*policy);
}

}  // namespace cordon::cli
