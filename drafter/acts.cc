#include "drafter/acts.h"

namespace cordon::drafter {

std::string_view act_label(Act act) {
  switch (act) {
    case Act::kOpen:
      return "open";
    case Act::kStat:
      return "stat";
    case Act::kReadlink:
      return "readlink";
    case Act::kChdir:
      return "chdir";
    case Act::kExisting:
      return "create (already there)";
    case Act::kList:
      return "list";
    case Act::kExec:
      return "exec";
    case Act::kConnect:
      return "connect";
    case Act::kOpenWrite:
      return "open for writing";
    case Act::kTmpfile:
      return "O_TMPFILE";
    case Act::kWriteProbe:
      return "write probe";
    case Act::kTruncate:
      return "truncate";
    case Act::kChmod:
      return "chmod";
    case Act::kChown:
      return "chown";
    case Act::kSetTimes:
      return "set times";
    case Act::kSetXattr:
      return "set xattr";
    case Act::kCreate:
      return "create";
    case Act::kMkdir:
      return "mkdir";
    case Act::kMknod:
      return "mknod";
    case Act::kSymlink:
      return "symlink";
    case Act::kLinkFrom:
      return "hard link from";
    case Act::kLinkTo:
      return "hard link to";
    case Act::kRemove:
      return "remove";
    case Act::kRenameFrom:
      return "rename away";
    case Act::kRenameTo:
      return "rename into place";
  }
  return "?";
}

Need own_need(Act act) {
  if (act <= Act::kConnect) return Need::kRead;
  if (act <= Act::kSetXattr) return Need::kWrite;
  return Need::kNone;
}

bool is_look(Act act) {
  return act <= Act::kExisting;
}

bool is_name_act(Act act) {
  return act >= Act::kCreate;
}

bool writes_content(Act act) {
  switch (act) {
    case Act::kOpenWrite:
    case Act::kTruncate:
    case Act::kChmod:
    case Act::kCreate:
    case Act::kMknod:
    case Act::kSymlink:
    case Act::kLinkTo:
    case Act::kRenameTo:
      return true;
    default:
      return false;
  }
}

std::string acts_text(const std::vector<ActStat>& acts) {
  int64_t counts[kActCount] = {};
  for (const ActStat& a : acts) counts[static_cast<int>(a.act)] += a.count;
  std::string out;
  for (int i = 0; i < kActCount; ++i) {
    if (counts[i] == 0) continue;
    if (!out.empty()) out += ", ";
    out += act_label(static_cast<Act>(i));
    if (counts[i] > 1) out += " \u00d7" + std::to_string(counts[i]);
  }
  return out;
}

}  // namespace cordon::drafter
