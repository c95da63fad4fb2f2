#include "tracer/run_info.h"

#include <pwd.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <ctime>

#include <fmt/format.h>

#include "tracer/tracer.h"

extern char** environ;

namespace cordon::tracer {

int64_t unix_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

schema::RunInfo collect_run_info(const std::vector<std::string>& command) {
  schema::RunInfo info;
  info.argv = command;
  char cwd[4096];
  if (::getcwd(cwd, sizeof cwd)) info.cwd = cwd;
  for (char** e = environ; *e; ++e) {
    std::string entry(*e);
    info.env_names.push_back(entry.substr(0, entry.find('=')));
  }
  info.uid = ::getuid();
  if (passwd* pw = ::getpwuid(::getuid())) info.user_name = pw->pw_name;
  if (const char* home = std::getenv("HOME")) info.home = home;
  utsname u;
  if (::uname(&u) == 0) {
    info.kernel = u.release;
    info.arch = u.machine;
  }
  info.cordon_version = CORDON_VERSION;
  info.started_at = unix_now_ns();
  return info;
}

std::string default_trace_path(const std::string& command_name) {
  std::string base;
  if (const char* state = std::getenv("XDG_STATE_HOME"); state && *state == '/') {
    base = state;
  } else {
    const char* home = std::getenv("HOME");
    base = std::string(home ? home : "") + "/.local/state";
  }
  // Only a tame subset of the command's name goes into the file name.
  std::string name;
  for (char c : command_name.substr(command_name.rfind('/') + 1)) {
    bool tame = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '-' || c == '_' || c == '.';
    name += tame ? c : '_';
  }
  if (name.empty()) name = "command";
  auto now = std::chrono::system_clock::now();
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  return fmt::format("{}/cordon/traces/{:04}{:02}{:02}T{:02}{:02}{:02}.{:03}Z-{}.db", base,
                     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                     ms, name);
}

}  // namespace cordon::tracer
