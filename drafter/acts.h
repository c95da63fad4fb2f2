// What a traced call did to one name, in the drafter's vocabulary.
//
// An event becomes one or two acts (a rename is "rename away" on the source
// and "rename into place" on the destination). Each act says which access the
// name itself needs, if any; acts that add or drop a name need the directory
// that holds it instead (docs/learn-rules.md, rule 1).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cordon::drafter {

enum class Act : uint8_t {
  // Looking: a read of the name, or nothing when it is only on the way.
  kOpen,
  kStat,
  kReadlink,
  kChdir,
  kExisting,  // mkdir/mknod/symlink/O_EXCL on a name that was already there
  // Reading for real.
  kList,
  kExec,
  kConnect,  // a Unix socket
  // Writing the name in place.
  kOpenWrite,
  kTmpfile,  // O_TMPFILE: an unnamed file in this directory
  kWriteProbe,
  kTruncate,
  kChmod,
  kChown,
  kSetTimes,
  kSetXattr,
  // Adding or dropping the name: a write of its directory.
  kCreate,
  kMkdir,
  kMknod,
  kSymlink,
  kLinkFrom,
  kLinkTo,
  kRemove,
  kRenameFrom,
  kRenameTo,
};
inline constexpr int kActCount = static_cast<int>(Act::kRenameTo) + 1;

std::string_view act_label(Act act);

// How often one act was seen on a name, and the first time (provenance).
struct ActStat {
  Act act;
  uint32_t run = 0;  // index into Draft::runs
  int64_t count = 0;
  int64_t first_seq = 0;
};

// "open ×2, rename into place": labels in Act order, a count when above one.
std::string acts_text(const std::vector<ActStat>& acts);

enum class Need : uint8_t { kNone, kRead, kWrite };

// Access the name itself needs for this act; kNone for the name acts.
Need own_need(Act act);

// Acts that leave the name looked at and nothing more: such a directory is
// only "on the way" when something below it is granted.
bool is_look(Act act);

// Acts that add or drop the name (its directory is written).
bool is_name_act(Act act);

// Acts after which the file holds something this run put there.
bool writes_content(Act act);

}  // namespace cordon::drafter
