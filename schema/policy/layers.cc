#include "schema/policy/layers.h"

#include "schema/policy/policy.h"
#include "util/path.h"

namespace cordon::schema {
namespace {

// A layer file that is simply not there is "no such layer"; one that exists
// but cannot be read (permissions, a directory, a symlink at the workspace
// path) is an error, because silently dropping a layer can drop its denies.
util::Status add_optional(std::vector<Layer>& layers, const std::string& name,
                          util::Result<Policy> loaded) {
  if (!loaded) {
    if (loaded.error().errno_value == ENOENT) return {};
    return loaded.error();
  }
  layers.push_back(Layer{name, std::move(*loaded)});
  return {};
}

}  // namespace

util::Result<EffectivePolicy> load_layers(const LayerSources& sources) {
  std::vector<Layer> layers;
  auto base = base_policy(sources.cwd, sources.home);
  if (!base) return base.error();
  layers.push_back(Layer{"base", std::move(*base)});

  if (sources.user_file) {
    auto status = add_optional(layers, "user", load_policy_file(*sources.user_file, sources.home));
    if (!status) return status.error();
  }
  if (sources.workspace) {
    std::string file = util::join_path(sources.cwd, ".cordon.sbx");
    auto status = add_optional(layers, "workspace", load_workspace_policy(file, sources.home));
    if (!status) return status.error();
  }
  for (const std::string& file : sources.policy_files) {
    auto policy = load_policy_file(file, sources.home);
    if (!policy) return policy.error();
    layers.push_back(Layer{"--policy " + file, std::move(*policy)});
  }
  return EffectivePolicy(std::move(layers));
}

std::string user_policy_path(const char* xdg_config_home, const std::string& home) {
  std::string config = xdg_config_home && xdg_config_home[0] == '/'
                           ? std::string(xdg_config_home)
                           : util::join_path(home, ".config");
  return util::join_path(config, "cordon/policy.sbx");
}

}  // namespace cordon::schema
