// Collector: folds a stream of trace events into what happened to each name.
//
// Memory is proportional to the distinct names and destinations, not to the
// events: the drafter streams a trace through `add` (TraceDb::for_each_event)
// and never holds the events themselves. Paths under /dev and /proc are only
// counted: every sandbox gets its own, so they are never drafted.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "drafter/acts.h"
#include "schema/trace_db.h"

namespace cordon::drafter {

struct PathInfo {
  std::vector<ActStat> acts;  // in first-seen order; a handful at most
  int8_t first_existed = -1;  // first known observation: 1 there, 0 absent, -1 never known
  bool ever_existed = false;
  bool created = false;  // a call made the name where there was none
  bool written = false;  // something this run produced is in it
  bool has(Act act) const;
  // First seen absent (or never observed), then made by the run.
  bool created_in_run() const { return created && first_existed != 1; }
};

// A rename or hard link whose two names sit in different directories.
struct CrossMove {
  int64_t renames = 0;
  int64_t links = 0;
  std::string example_from, example_to;  // the first one seen
  bool example_is_link = false;
};

// Lets maps keyed by std::string be searched with a string_view, so walking
// the directories above a name allocates nothing.
struct PathHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
template <typename T>
using PathMap = std::unordered_map<std::string, T, PathHash, std::equal_to<>>;

struct Sighting {
  int64_t count = 0;
  uint32_t run = 0;
  int64_t first_seq = 0;
};

// A destination cordon's proxy connected a run to (the trace's `net` table).
struct Proxied {
  Sighting seen;
  bool named = false;                // attributed to a name the run looked up
  std::vector<std::string> dialled;  // the addresses it reached, first few
};

struct Collector {
  void add(const schema::EventRecord& event, uint32_t run);
  // The proxy's records of a run, read before its events: its connects to
  // non-loopback addresses are then the proxy's to report, with names.
  void add_net(const schema::NetRecord& record, uint32_t run);

  PathMap<PathInfo> paths;
  std::map<std::pair<std::string, std::string>, CrossMove> cross_moves;  // (from dir, to dir)
  std::map<std::string, Sighting> tcp;       // "ADDR:PORT" / "[ADDR]:PORT", not loopback
  std::map<std::string, Sighting> loopback;  // same form
  // (protocol, "NAME:PORT", else as `tcp`); "tcp" or "udp".
  std::map<std::pair<std::string, std::string>, Proxied> proxied;
  std::map<std::string, Sighting> abstract_sockets;
  std::map<std::string, Sighting> exec_of_written;  // path
  int64_t device_or_proc = 0;                       // calls on /dev or /proc paths
  int64_t faults = 0;                               // a path argument could not be read
  int64_t other_connects = 0;                       // families with nothing to draft
  std::map<std::string, int64_t> refused;           // syscall -> count
  std::set<uint32_t> proxied_runs;                  // runs with net records

 private:
  void act(const std::string& path, Act act, std::optional<bool> existed, uint32_t run,
           int64_t seq);
  void connect(const schema::EventRecord& event, uint32_t run);
};

// True for /dev and /proc and everything below them.
bool never_drafted(const std::string& path);

}  // namespace cordon::drafter
