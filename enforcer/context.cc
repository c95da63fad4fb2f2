#include "enforcer/context.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "util/path.h"

namespace cordon::enforcer {

namespace {

// A cell of a Markdown table: printable, with pipes escaped.
std::string cell(const std::string& path) {
  std::string out;
  for (char c : util::printable(path)) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string shown(const std::string& path, const std::string& home) {
  if (util::path_within(path, home) && path != home) return "~" + path.substr(home.size());
  return path;
}

// What the base layer lends every sandbox read-only: collapsed to one line,
// since nobody needs them spelled out.
bool system_path(const std::string& path) {
  for (const char* dir :
       {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt"}) {
    if (util::path_within(path, dir)) return true;
  }
  return false;
}

}  // namespace

std::string render_context(const ContextInput& in) {
  std::string out =
      "# You are inside a cordon sandbox\n\n"
      "This process was started by `cordon run` and is confined to a policy. This file describes\n"
      "what was actually mounted; it is read-only and generated for this run.\n\n"
      "## Files\n\n"
      "Only the paths below exist from the host. Everything else is absent, and the space between\n"
      "them is read-only: writing anywhere else fails with `Read-only file system`.\n\n"
      "| path | access |\n|---|---|\n";
  std::vector<std::string> system;
  std::vector<std::string> rows;
  bool tmp_private = false;
  for (const auto& op : in.plan->ops) {
    std::string access;
    switch (op.kind) {
      case MountKind::kBind:
        access = "read-write";
        break;
      case MountKind::kRoBind:
        access = op.source == "/dev/null" ? "" : "read-only";
        break;
      case MountKind::kTmpfs:
        if (op.dest == "/tmp") tmp_private = true;
        access = op.dest == in.home ? "" : "private, empty at start, discarded at exit";
        break;
      case MountKind::kSymlink:
        access = "symlink to " + cell(op.source);
        break;
      default:
        break;
    }
    if (access.empty()) continue;
    const bool personal = util::path_within(op.dest, in.home) || util::path_within(op.dest, in.cwd);
    if (!personal && system_path(op.dest) && op.kind != MountKind::kBind) {
      system.push_back(cell(op.dest));
      continue;
    }
    std::string note = op.dest == in.cwd ? " (working directory)" : "";
    rows.push_back(fmt::format("| {}{} | {} |\n", cell(shown(op.dest, in.home)), note, access));
  }
  for (const auto& r : rows) out += r;
  if (!system.empty()) {
    std::sort(system.begin(), system.end());
    out += "\nSystem paths, read-only: ";
    for (size_t i = 0; i < system.size(); ++i) out += (i ? ", " : "") + system[i];
    out += ".\n";
  }
  out += fmt::format(
      "\n- The home directory ({}) holds only what is listed above.\n"
      "- A file visible at two paths with the same inode is one bind mount, not a hard link.\n"
      "- `/dev` and `/proc` are the sandbox's own; host processes are not visible.\n{}",
      cell(in.home), tmp_private ? "- `/tmp` is private to this sandbox.\n" : "");
  if (!in.denied.empty()) {
    out += "\n## Absent on purpose\n\nThese are denied by the policy and cannot be reached:\n";
    std::set<std::string> sorted(in.denied.begin(), in.denied.end());
    for (const auto& d : sorted) out += "- " + cell(shown(d, in.home)) + "\n";
  }
  if (in.net_allowed.empty()) {
    out +=
        "\n## Network\n\nNo network: the sandbox has only its own loopback (127.0.0.1 here is the "
        "sandbox, not the host).\n";
  } else {
    out +=
        "\n## Network\n\nOutgoing connections reach only these destinations (TCP unless marked "
        "udp), through cordon's proxy; every other connection is reset, every other datagram "
        "dropped, and every other name does not resolve. 127.0.0.1 here is the sandbox's own "
        "loopback; `host.internal` is the host's.\n\n";
    for (const auto& d : in.net_allowed) out += "- " + cell(d) + "\n";
  }
  if (!in.exposed.empty()) {
    out += "\nListeners on these ports inside are reachable from the host's loopback: ";
    for (size_t i = 0; i < in.exposed.size(); ++i) {
      out += (i ? ", " : "") + std::to_string(in.exposed[i]);
    }
    out += ".\n";
  }
  out += "\n## Environment\n\nOnly these variables were passed in (values not shown): ";
  std::set<std::string> names(in.passed_env.begin(), in.passed_env.end());
  size_t i = 0;
  for (const auto& n : names) out += (i++ ? ", " : "") + cell(n);
  out += names.empty() ? "none.\n" : ".\n";
  return out;
}

}  // namespace cordon::enforcer
