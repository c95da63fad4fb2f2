// The built-in base layer. It is kept as policy text, not built in code, so
// `cordon policy base` shows exactly what applies, comments included, and
// origins point at its lines.
#include "schema/policy/policy.h"

namespace cordon::schema {
namespace {

constexpr std::string_view kBaseText =
    R"(# cordon's built-in base layer: the least most programs need to start, plus
# the few things no other layer may take back.
# "." is the working directory and "~" the invoking user's home.
#
# Not listed: /dev, /proc, /sys and /tmp. The enforcer sets those up for each
# sandbox (a minimal /dev, its own /proc, a private /tmp) instead of sharing
# the host's. /var is left out: it holds other services' state, logs and
# spools, and programs that are not those services rarely need it.
fs {
  # Programs, libraries and their data. On merged-/usr systems /bin, /sbin
  # and /lib* are symlinks into /usr, but ELF binaries name their loader by
  # its /lib64 (or /lib, /lib32, /libx32) path, so the links must resolve.
  allow_read [
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
  ]
  # Host configuration: the loader cache, users and groups, nsswitch, the
  # resolver and hosts file, TLS roots, the time zone, alternatives links.
  # Picking these one by one breaks programs in ways that are hard to trace;
  # the secrets under /etc (shadow, host keys) are root-only, and file modes
  # still apply inside the sandbox.
  allow_read "/etc"
  # Software installed outside the package manager that programs run.
  allow_read "/opt"
  # The project being worked on.
  allow_write "."
  # Files whose contents run later outside the sandbox, or widen the next
  # sandbox: git hooks and config (core.hooksPath, core.fsmonitor), direnv's
  # .envrc, and cordon's own workspace and user policies.
  deny_write [
    ".cordon.sbx",
    ".git/hooks",
    ".git/config",
    ".envrc",
    "~/.config/cordon",
  ]
  # Credentials. A deny wins over every grant in every layer, so a workspace
  # policy from a cloned repository cannot grant these, and a sandbox started
  # in the home directory does not see them.
  deny [
    "~/.ssh",
    "~/.gnupg",
    "~/.aws",
    "~/.azure",
    "~/.config/gcloud",
    "~/.config/gh",
    "~/.kube",
    "~/.docker",
    "~/.netrc",
    "~/.git-credentials",
  ]
}
env {
  # What programs need to behave normally; none of these carry secrets.
  pass ["PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "TERM", "TZ"]
}
)";

}  // namespace

std::string_view base_policy_text() {
  return kBaseText;
}

util::Result<Policy> base_policy(const std::string& cwd, const std::string& home) {
  return parse_policy(kBaseText, ParseContext{"<base>", home, cwd});
}

}  // namespace cordon::schema
