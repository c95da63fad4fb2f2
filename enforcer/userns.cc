#include "enforcer/userns.h"

#include "enforcer/sysctl.h"

namespace cordon::enforcer {

UsernsSettings read_userns_settings() {
  return {read_sysctl("/proc/sys/user/max_user_namespaces"),
          read_sysctl("/proc/sys/kernel/unprivileged_userns_clone"),
          read_sysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns")};
}

bool userns_disabled(const UsernsSettings& s) {
  return (s.max_user_namespaces && *s.max_user_namespaces == 0) ||
         (s.unprivileged_userns_clone && *s.unprivileged_userns_clone == 0);
}

bool apparmor_restricts_userns(const UsernsSettings& s) {
  return s.apparmor_restrict_userns && *s.apparmor_restrict_userns != 0;
}

std::string userns_fix(const UsernsSettings& s) {
  std::string fix;
  if (s.max_user_namespaces && *s.max_user_namespaces == 0) {
    fix = "sysctl -w user.max_user_namespaces=15000";
  }
  if (s.unprivileged_userns_clone && *s.unprivileged_userns_clone == 0) {
    fix += std::string(fix.empty() ? "" : " and ") + "sysctl -w kernel.unprivileged_userns_clone=1";
  }
  if (!fix.empty()) fix += " (add it to /etc/sysctl.d/ to keep it after a reboot)";
  return fix;
}

std::string apparmor_fix() {
  return "install cordon's AppArmor profile: cp packaging/apparmor/cordon /etc/apparmor.d/cordon "
         "&& "
         "apparmor_parser -r /etc/apparmor.d/cordon";
}

std::string userns_hint(const UsernsSettings& s, const std::string& bwrap_stderr) {
  if (userns_disabled(s)) return "unprivileged user namespaces are disabled: " + userns_fix(s);
  // Ubuntu's restriction lets the namespace be created and strips it of
  // capabilities, so bwrap fails one step later writing its uid map.
  bool uid_map_refused = bwrap_stderr.find("uid_map") != std::string::npos &&
                         bwrap_stderr.find("Operation not permitted") != std::string::npos;
  if (apparmor_restricts_userns(s) || uid_map_refused) {
    return "AppArmor restricts unprivileged user namespaces (Ubuntu 23.10+): " + apparmor_fix();
  }
  return "";
}

}  // namespace cordon::enforcer
