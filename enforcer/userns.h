// The host settings that decide whether an unprivileged process may create a
// user namespace, which bwrap needs for every sandbox. Read from /proc/sys;
// a setting the kernel does not have is absent, and absent means "does not
// restrict".
#pragma once

#include <optional>
#include <string>

namespace cordon::enforcer {

struct UsernsSettings {
  std::optional<long> max_user_namespaces;        // user.max_user_namespaces
  std::optional<long> unprivileged_userns_clone;  // Debian's old kernel.unprivileged_userns_clone
  std::optional<long>
      apparmor_restrict_userns;  // Ubuntu's kernel.apparmor_restrict_unprivileged_userns
};

UsernsSettings read_userns_settings();

// Whether the sysctls themselves forbid it (AppArmor aside: its restriction
// can be lifted for cordon alone by a profile).
bool userns_disabled(const UsernsSettings& s);
bool apparmor_restricts_userns(const UsernsSettings& s);

// The commands that lift each restriction, worded as a fix for the user.
std::string userns_fix(const UsernsSettings& s);
std::string apparmor_fix();

// One hint for a bwrap refusal, from the settings and bwrap's own message;
// empty when neither points at a cause.
std::string userns_hint(const UsernsSettings& s, const std::string& bwrap_stderr);

}  // namespace cordon::enforcer
