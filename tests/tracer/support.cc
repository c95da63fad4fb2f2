#include "tests/tracer/support.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace cordon::ittest {

namespace {

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : std::string(fallback);
}

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error(what + (errno ? std::string(": ") + std::strerror(errno) : ""));
}

std::string read_fd(int fd) {
  std::string out;
  char buf[65536];
  off_t at = 0;
  ssize_t n;
  while ((n = ::pread(fd, buf, sizeof buf, at)) > 0) {
    out.append(buf, static_cast<size_t>(n));
    at += n;
  }
  return out;
}

int memfd(const char* name) {
  int fd = ::memfd_create(name, MFD_CLOEXEC);
  if (fd < 0) fail("memfd_create");
  return fd;
}

}  // namespace

std::string cordon_bin() {
  return env_or("CORDON_BIN", CORDON_DEFAULT_BIN);
}
std::string fixtures_dir() {
  return env_or("CORDON_FIXTURES_DIR", CORDON_DEFAULT_FIXTURES_DIR);
}
std::string fixture(const std::string& name) {
  return fixtures_dir() + "/" + name;
}
std::string prepare_script() {
  return env_or("CORDON_SOURCE_DIR", CORDON_DEFAULT_SOURCE_DIR) + "/fixtures/prepare_dir.sh";
}

std::string find_program(const std::string& name) {
  std::string path = env_or("PATH", "/usr/local/bin:/usr/bin:/bin");
  path += ":/usr/bin:/bin";
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    if (!dir.empty() && dir.front() == '/') {
      std::string candidate = dir + "/" + name;
      struct stat st;
      if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
          ::access(candidate.c_str(), X_OK) == 0) {
        return candidate;
      }
    }
    start = end + 1;
  }
  return "";
}

ScratchOutsideTmp::ScratchOutsideTmp() {
  ::setenv("TMPDIR", "/var/tmp", 1);
}
ScratchOutsideTmp::~ScratchOutsideTmp() {
  ::unsetenv("TMPDIR");
}

ScratchDir::ScratchDir(const std::string& tag) {
  std::string base = env_or("TMPDIR", "/tmp");
  std::string templ = base + "/" + tag + "-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data())) fail("mkdtemp " + templ);
  path_ = buf.data();
}

ScratchDir::~ScratchDir() {
  remove_tree(path_);
}

void remove_tree(const std::string& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return;
  // Directories a test left unwritable are opened up first, then everything
  // is removed depth-first; symlinks are never followed.
  ::nftw(
      path.c_str(),
      [](const char* p, const struct stat* s, int type, FTW*) {
        if (type == FTW_D || type == FTW_DNR) ::chmod(p, (s->st_mode & 07777) | S_IRWXU);
        return 0;
      },
      32, FTW_PHYS);
  ::nftw(
      path.c_str(),
      [](const char* p, const struct stat*, int, FTW*) {
        (void)::remove(p);  // best effort: keep going
        return 0;
      },
      32, FTW_PHYS | FTW_DEPTH);
}

void prepare_dir(const std::string& dir) {
  RunResult r = run({"/bin/sh", prepare_script(), dir});
  if (r.code != 0) throw std::runtime_error("prepare_dir.sh " + dir + " failed: " + r.describe());
}

std::string read_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("open " + path);
  std::string out = read_fd(fd);
  ::close(fd);
  return out;
}

void write_file(const std::string& path, const std::string& data, mode_t mode) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) fail("create " + path);
  if (::write(fd, data.data(), data.size()) != static_cast<ssize_t>(data.size()))
    fail("write " + path);
  ::close(fd);
  ::chmod(path.c_str(), mode);
}

bool exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void sleep_seconds(double s) {
  std::this_thread::sleep_for(std::chrono::duration<double>(s));
}

std::string RunResult::describe() const {
  std::string s = "exit " + std::to_string(code);
  if (signal) s += " (signal " + std::to_string(signal) + ")";
  if (timed_out) s += " (TIMED OUT, killed)";
  s += "\n--- stdout ---\n" + out.substr(0, 4000) + "\n--- stderr ---\n" + err.substr(0, 4000);
  return s;
}

Process::Process(pid_t pid, int out_fd, int err_fd, double timeout)
    : pid_(pid), out_fd_(out_fd), err_fd_(err_fd), timeout_(timeout), started_(now_seconds()) {}

Process::Process(Process&& o) noexcept
    : pid_(o.pid_),
      out_fd_(o.out_fd_),
      err_fd_(o.err_fd_),
      timeout_(o.timeout_),
      started_(o.started_),
      status_(o.status_) {
  o.pid_ = -1;
  o.out_fd_ = o.err_fd_ = -1;
}

Process::~Process() {
  if (pid_ > 0 && !status_) {
    ::kill(pid_, SIGKILL);
    int st;
    ::waitpid(pid_, &st, 0);
  }
  if (out_fd_ >= 0) ::close(out_fd_);
  if (err_fd_ >= 0) ::close(err_fd_);
}

bool Process::poll() {
  if (status_) return true;
  int st;
  pid_t r = ::waitpid(pid_, &st, WNOHANG);
  if (r == pid_) status_ = st;
  return status_.has_value();
}

std::string Process::output_so_far() const {
  return read_fd(out_fd_);
}

RunResult Process::finish() {
  RunResult r;
  bool killed = false;
  while (!poll()) {
    if (now_seconds() - started_ > timeout_ && !killed) {
      ::kill(pid_, SIGKILL);
      killed = true;
    }
    sleep_seconds(0.005);
  }
  r.seconds = now_seconds() - started_;
  r.timed_out = killed;
  int st = *status_;
  if (WIFEXITED(st)) {
    r.code = WEXITSTATUS(st);
  } else if (WIFSIGNALED(st)) {
    r.signal = WTERMSIG(st);
    r.code = 128 + r.signal;
  }
  r.out = read_fd(out_fd_);
  r.err = read_fd(err_fd_);
  return r;
}

Process start(const std::vector<std::string>& argv, const RunOptions& opt) {
  if (argv.empty()) throw std::runtime_error("start: empty argv");
  // Everything the child needs is built before fork.
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string entry(*e);
    std::string name = entry.substr(0, entry.find('='));
    bool drop = std::find(opt.unset_env.begin(), opt.unset_env.end(), name) != opt.unset_env.end();
    for (const auto& [k, v] : opt.env) drop = drop || k == name;
    if (!drop) env.push_back(entry);
  }
  for (const auto& [k, v] : opt.env) env.push_back(k + "=" + v);
  std::vector<char*> envp, args;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& a : argv_copy) args.push_back(a.data());
  args.push_back(nullptr);

  int out = memfd("stdout"), err = memfd("stderr");
  int in;
  if (opt.stdin_data.empty()) {
    in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  } else {
    in = memfd("stdin");
    if (::write(in, opt.stdin_data.data(), opt.stdin_data.size()) < 0) fail("write stdin");
    ::lseek(in, 0, SEEK_SET);
  }
  if (in < 0) fail("open /dev/null");

  pid_t pid = ::fork();
  if (pid < 0) fail("fork");
  if (pid == 0) {
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int sig = 1; sig < NSIG; ++sig) ::signal(sig, SIG_DFL);
    if (!opt.cwd.empty() && ::chdir(opt.cwd.c_str()) != 0) {
      std::string msg = "chdir " + opt.cwd + " failed\n";
      (void)!::write(2, msg.data(), msg.size());
      ::_exit(127);
    }
    environ = envp.data();
    ::execvp(args[0], args.data());
    std::string msg = "exec " + argv_copy[0] + ": " + std::strerror(errno) + "\n";
    (void)!::write(2, msg.data(), msg.size());
    ::_exit(127);
  }
  ::close(in);
  return Process(pid, out, err, opt.timeout);
}

RunResult run(const std::vector<std::string>& argv, const RunOptions& options) {
  return start(argv, options).finish();
}

RunResult trace(const std::string& db, const std::vector<std::string>& command,
                const RunOptions& options, const std::vector<std::string>& extra) {
  std::vector<std::string> argv = {cordon_bin(), "trace", "-o", db};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back("--");
  argv.insert(argv.end(), command.begin(), command.end());
  return run(argv, options);
}

namespace {
schema::TraceDb open_trace(const std::string& db) {
  auto t = schema::TraceDb::open_for_reading(db);
  if (!t) throw std::runtime_error("open_for_reading: " + t.error().message);
  return std::move(*t);
}
}  // namespace

std::vector<schema::RunSummary> load_runs(const std::string& db) {
  auto t = open_trace(db);
  auto runs = t.runs();
  if (!runs) throw std::runtime_error("runs(): " + runs.error().message);
  return *runs;
}

std::vector<schema::EventRecord> load_events(const std::string& db, int64_t run_id) {
  auto t = open_trace(db);
  std::vector<schema::EventRecord> out;
  schema::EventFilter filter;
  filter.run_id = run_id;
  auto st = t.for_each_event(filter, [&](int64_t, const schema::EventRecord& e) {
    out.push_back(e);
    return true;
  });
  if (!st) throw std::runtime_error("for_each_event: " + st.error().message);
  return out;
}

std::vector<schema::ProcessRecord> load_processes(const std::string& db, int64_t run_id) {
  auto t = open_trace(db);
  auto p = t.processes(run_id);
  if (!p) throw std::runtime_error("processes(): " + p.error().message);
  return *p;
}

bool within(const std::optional<std::string>& path, const std::string& dir) {
  if (!path || path->compare(0, dir.size(), dir) != 0) return false;
  return path->size() == dir.size() || (*path)[dir.size()] == '/';
}

std::vector<schema::EventRecord> own_events(const std::vector<schema::EventRecord>& events,
                                            const std::string& dir) {
  std::vector<schema::EventRecord> out;
  for (const auto& e : events) {
    if (e.op == "exec" || within(e.abs_path, dir) || within(e.abs_path2, dir)) out.push_back(e);
  }
  return out;
}

std::string brief(const schema::EventRecord& e, const std::string& dir) {
  auto show = [&](const std::optional<std::string>& p, const std::optional<bool>& existed) {
    std::string s = !p ? "(null)" : within(p, dir) ? "DIR" + p->substr(dir.size()) : *p;
    if (existed) s += *existed ? " existed" : " new";
    return s;
  };
  std::string s = e.syscall + " " + e.op + " " + show(e.abs_path, e.existed);
  if (e.abs_path2 || e.path2) s += " -> " + show(e.abs_path2, e.existed2);
  return s;
}

std::vector<std::string> briefs(const std::vector<schema::EventRecord>& events,
                                const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : events) out.push_back(brief(e, dir));
  return out;
}

std::vector<pid_t> pids_with_arg(const std::string& token) {
  std::vector<pid_t> out;
  DIR* d = ::opendir("/proc");
  if (!d) return out;
  while (dirent* ent = ::readdir(d)) {
    char* end;
    long pid = std::strtol(ent->d_name, &end, 10);
    if (*end != '\0' || pid <= 0 || pid == ::getpid()) continue;
    int fd =
        ::open(("/proc/" + std::string(ent->d_name) + "/cmdline").c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    std::string cmdline = read_fd(fd);
    ::close(fd);
    if (cmdline.find(token) != std::string::npos) out.push_back(static_cast<pid_t>(pid));
  }
  ::closedir(d);
  return out;
}

}  // namespace cordon::ittest
