// Helpers shared by the tracer and CLI integration tests: where cordon and
// the fixtures are, scratch directories, running processes, reading traces.
//
// The binaries are found through $CORDON_BIN, $CORDON_FIXTURES_DIR and
// $CORDON_SOURCE_DIR (prepare_dir.sh lives in its fixtures/), each with a
// compile-time default into the build tree, so the test binaries also run
// when copied elsewhere and run as another user.
//
// Helpers report trouble by throwing std::runtime_error: GoogleTest turns
// that into a failure of the running test with the message.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "schema/trace_db.h"

namespace cordon::ittest {

std::string cordon_bin();
std::string fixtures_dir();
std::string fixture(const std::string& name);  // path of a fixture binary
std::string prepare_script();                  // fixtures/prepare_dir.sh
// Absolute path of `name` in $PATH (or the standard directories), "" if none.
std::string find_program(const std::string& name);

// Sets TMPDIR to /var/tmp while it lives, so ScratchDirs made meanwhile are
// outside /tmp: inside a sandbox /tmp is a private tmpfs, where a path under
// the host's /tmp is simply absent (or a write lands there, unseen), instead
// of being granted or refused.
struct ScratchOutsideTmp {
  ScratchOutsideTmp();
  ~ScratchOutsideTmp();
};

// A fresh directory under $TMPDIR (or /tmp), removed with its contents on
// destruction.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& tag = "cordon-it");
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& rel) const { return path_ + "/" + rel; }

 private:
  std::string path_;
};

// Removes `path` and everything below it (ignores a missing path).
void remove_tree(const std::string& path);
// mkdir DIR and lay out the fixtures' scratch tree in it.
void prepare_dir(const std::string& dir);
std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& data, mode_t mode = 0644);
bool exists(const std::string& path);

struct RunOptions {
  std::string cwd = {};                                       // "" = inherit
  std::vector<std::pair<std::string, std::string>> env = {};  // set (or override)
  std::vector<std::string> unset_env = {};
  std::string stdin_data = {};  // fed through a memfd
  double timeout = 120;         // then SIGKILL
};

struct RunResult {
  int code = -1;   // exit code, 128+N when killed by signal N
  int signal = 0;  // the killing signal, 0 when it exited
  bool timed_out = false;
  double seconds = 0;
  std::string out, err;
  std::string describe() const;  // for failure messages
};

// A started child; waits for (or kills) it on destruction.
class Process {
 public:
  Process(pid_t pid, int out_fd, int err_fd, double timeout);
  Process(Process&& other) noexcept;
  Process& operator=(Process&&) = delete;
  ~Process();
  pid_t pid() const { return pid_; }
  // True once the child has ended (it is then reaped and finish() returns at once).
  bool poll();
  RunResult finish();
  std::string output_so_far() const;  // stdout captured up to now

 private:
  pid_t pid_;
  int out_fd_, err_fd_;
  double timeout_;
  double started_;
  std::optional<int> status_;
};

Process start(const std::vector<std::string>& argv, const RunOptions& options = {});
RunResult run(const std::vector<std::string>& argv, const RunOptions& options = {});

// `cordon trace -o DB [extra...] -- command...`.
RunResult trace(const std::string& db, const std::vector<std::string>& command,
                const RunOptions& options = {}, const std::vector<std::string>& extra = {});

// Readers; they throw when the trace does not open.
std::vector<schema::RunSummary> load_runs(const std::string& db);
std::vector<schema::EventRecord> load_events(const std::string& db, int64_t run_id = 1);
std::vector<schema::ProcessRecord> load_processes(const std::string& db, int64_t run_id = 1);

bool within(const std::optional<std::string>& path, const std::string& dir);
// Events naming something under `dir` (either path), plus every exec, in order.
std::vector<schema::EventRecord> own_events(const std::vector<schema::EventRecord>& events,
                                            const std::string& dir);
// "syscall op ABS[ existed|new] [-> ABS2[ existed|new]]" with `dir` shown as DIR.
std::string brief(const schema::EventRecord& e, const std::string& dir);
std::vector<std::string> briefs(const std::vector<schema::EventRecord>& events,
                                const std::string& dir);

// Pids of live processes whose argv contains `token` as a whole argument or
// inside one (found through /proc; our own pid excluded).
std::vector<pid_t> pids_with_arg(const std::string& token);
// Polls `pred` every 20 ms until it holds or `seconds` pass.
template <typename Pred>
bool eventually(Pred pred, double seconds);
double now_seconds();
void sleep_seconds(double s);

template <typename Pred>
bool eventually(Pred pred, double seconds) {
  double end = now_seconds() + seconds;
  for (;;) {
    if (pred()) return true;
    if (now_seconds() > end) return false;
    sleep_seconds(0.02);
  }
}

}  // namespace cordon::ittest
