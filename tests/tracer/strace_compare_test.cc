// cordon against strace: the same command runs once under `strace -f` and
// once under `cordon trace`, each in an identical fresh scratch directory at
// the same path, and every (syscall, path) pair strace saw for a watched call
// must be in the trace, compared on the raw `path` column (symlink(at) also on
// the link text in `path2`).
//
// Skipped: pairs whose path is empty ("" with AT_EMPTY_PATH: fstat-style
// calls cordon deliberately does not watch) or not a readable string, calls
// without a path argument (getdents64, fchdir, io_uring_setup, exit_group),
// and connect() except to a filesystem Unix socket.
// Exclusions (masks applied to both sides before comparing):
//   git init: the random name of its symlink probe, .git/tXXXXXX (mkstemp).
// Nothing under /proc/self or /dev needed excluding on Debian 12.
#include <gtest/gtest.h>

#include <cctype>
#include <map>
#include <regex>

#include "tests/tracer/support.h"
#include "tracer/syscall_table.h"

namespace cordon::ittest {
namespace {

struct Mask {
  std::string pattern, replacement;
};

struct Case {
  std::string name;
  std::vector<std::string> argv;  // argv[0] looked up in PATH; "@fixture" prefix for fixtures
  bool fixture = false;
  std::vector<Mask> masks;
};

// strace -xx prints every byte of a string as \xHH.
std::optional<std::string> unquote(const std::string& arg, size_t at = 0) {
  if (at >= arg.size() || arg[at] != '"') return std::nullopt;
  std::string out;
  for (size_t i = at + 1; i < arg.size(); ++i) {
    if (arg[i] == '"') return out;
    if (arg[i] == '\\' && i + 3 < arg.size() && arg[i + 1] == 'x') {
      out += static_cast<char>(std::stoi(arg.substr(i + 2, 2), nullptr, 16));
      i += 3;
    } else {
      out += arg[i];
    }
  }
  return std::nullopt;
}

// Top-level arguments of "a, "b,c", [x, y], {..})" up to the closing paren.
std::vector<std::string> split_args(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  bool quoted = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quoted) {
      cur += c;
      if (c == '\\' && i + 1 < s.size()) {
        cur += s[++i];
      } else if (c == '"') {
        quoted = false;
      }
      continue;
    }
    if (c == '"') {
      quoted = true;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) break;
      --depth;
    } else if (c == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
      continue;
    } else if (c == ' ' && cur.empty()) {
      continue;
    }
    cur += c;
  }
  out.push_back(cur);
  return out;
}

std::string apply_masks(std::string path, const std::vector<Mask>& masks) {
  if (masks.empty()) return path;
  for (const auto& m : masks) path = std::regex_replace(path, std::regex(m.pattern), m.replacement);
  return path;
}

std::string key(const std::string& syscall, const std::string& path, const std::string& text = {}) {
  return syscall + " " + path + (text.empty() ? "" : " -> " + text);
}

std::map<std::string, int> strace_pairs(const std::string& log, const std::vector<Mask>& masks) {
  std::map<std::string_view, const tracer::SyscallSpec*> specs;
  for (const auto& s : tracer::watched_syscalls()) specs[s.name] = &s;
  std::map<std::string, int> out;
  size_t start = 0;
  while (start < log.size()) {
    size_t end = log.find('\n', start);
    if (end == std::string::npos) end = log.size();
    const std::string line = log.substr(start, end - start);
    start = end + 1;
    // "PID NAME(ARGS..." (no std::regex: it recurses per character and
    // overflows the stack on 16 KiB lines of hex-escaped 4095-byte paths).
    size_t i = 0;
    while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
    if (i == 0 || i >= line.size() || line[i] != ' ') continue;
    while (i < line.size() && line[i] == ' ') ++i;
    size_t name_start = i;
    while (i < line.size() &&
           (std::islower(static_cast<unsigned char>(line[i])) ||
            std::isdigit(static_cast<unsigned char>(line[i])) || line[i] == '_')) {
      ++i;
    }
    if (i == name_start || i >= line.size() || line[i] != '(') continue;  // resumed, signals, exits
    auto it = specs.find(line.substr(name_start, i - name_start));
    if (it == specs.end()) continue;
    const tracer::SyscallSpec& spec = *it->second;
    std::vector<std::string> args = split_args(line.substr(i + 1));
    if (spec.op == tracer::Op::kConnect) {
      if (args.size() < 2) continue;
      size_t at = args[1].find("sun_path=\"");
      if (at == std::string::npos) continue;  // inet, inet6, abstract
      if (auto p = unquote(args[1], at + 9); p && !p->empty()) {
        out[key(std::string(spec.name), apply_masks(*p, masks))]++;
      }
      continue;
    }
    if (spec.path < 0 || static_cast<size_t>(spec.path) >= args.size()) continue;
    auto path = unquote(args[static_cast<size_t>(spec.path)]);
    if (!path || path->empty()) continue;
    std::string text;
    if (spec.path2_is_link_text && static_cast<size_t>(spec.path2) < args.size()) {
      text = unquote(args[static_cast<size_t>(spec.path2)]).value_or("");
    }
    out[key(std::string(spec.name), apply_masks(*path, masks), text)]++;
  }
  return out;
}

std::map<std::string, int> cordon_pairs(const std::vector<schema::EventRecord>& events,
                                        const std::vector<Mask>& masks) {
  std::map<std::string, int> out;
  for (const auto& e : events) {
    if (!e.path || e.path->empty()) continue;
    bool link_text = e.syscall == "symlink" || e.syscall == "symlinkat";
    out[key(e.syscall, apply_masks(*e.path, masks), link_text ? e.path2.value_or("") : "")]++;
  }
  return out;
}

std::string strace_trace_list() {
  std::string list;
  for (const auto& s : tracer::watched_syscalls()) {
    if (s.op == tracer::Op::kExit || s.op == tracer::Op::kRefused) continue;
    // '?': names this strace does not know (fchmodat2 in strace 6.1) are skipped.
    list += (list.empty() ? "?" : ",?") + std::string(s.name);
  }
  return list;
}

std::string strace_unusable_reason() {
  std::string strace = find_program("strace");
  if (strace.empty()) return "strace is not installed (apt-get install strace)";
  RunResult r = run({strace, "-f", "-qq", "-e", "trace=execve", "-o", "/dev/null", "/bin/true"});
  if (r.code != 0) return "strace cannot trace here: " + r.err;
  return "";
}

std::string display(const std::string& k) {
  std::string out;
  for (unsigned char c : k) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out.size() > 300 ? out.substr(0, 300) + "..." : out;
}

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

class StraceCompare : public ::testing::TestWithParam<Case> {};

TEST_P(StraceCompare, EveryPathStraceSeesIsTraced) {
  const Case& c = GetParam();
  if (std::string why = strace_unusable_reason(); !why.empty()) GTEST_SKIP() << why;
  std::vector<std::string> argv = c.argv;
  if (c.fixture) {
    argv[0] = fixture(argv[0]);
  } else {
    std::string found = argv[0].front() == '/' ? argv[0] : find_program(argv[0]);
    if (found.empty() || !exists(found)) GTEST_SKIP() << argv[0] << " is not installed";
    argv[0] = found;
  }

  ScratchDir base("cordon-strace");
  const std::string work = base / "w";
  auto fresh = [&] {
    remove_tree(work);
    prepare_dir(work);
    ::mkdir((work + "/home").c_str(), 0755);
    ::mkdir((work + "/src").c_str(), 0755);
    ::mkdir((work + "/src/sub").c_str(), 0755);
    write_file(work + "/src/a.txt", "a\n");
    write_file(work + "/src/sub/b.txt", "b\n");
  };
  for (auto& a : argv) {
    if (a == "@DIR") a = work;
  }
  RunOptions opt;
  opt.cwd = work;
  opt.env = {{"HOME", work + "/home"}, {"PWD", work}, {"PYTHONDONTWRITEBYTECODE", "1"}};

  fresh();
  const std::string log_path = base / "strace.log";
  std::vector<std::string> strace_argv = {
      find_program("strace"),         "-f", "-qq",   "-xx", "-s", "65536", "-e",
      "trace=" + strace_trace_list(), "-o", log_path};
  strace_argv.insert(strace_argv.end(), argv.begin(), argv.end());
  RunResult native = run(strace_argv, opt);
  ASSERT_FALSE(native.timed_out) << native.describe();
  if (c.name != "io_uring_probe") {
    ASSERT_EQ(native.code, 0) << native.describe();
  }

  fresh();
  const std::string db = base / "trace.db";
  RunResult traced = trace(db, argv, opt);
  ASSERT_FALSE(traced.timed_out) << traced.describe();
  ASSERT_EQ(traced.code, 0) << traced.describe();
  if (c.name != "connect_loopback") {  // it prints its port
    EXPECT_EQ(native.out, traced.out);
  }

  std::map<std::string, int> seen = strace_pairs(read_file(log_path), c.masks);
  std::map<std::string, int> have = cordon_pairs(load_events(db), c.masks);
  // At least the dynamic loader's access/openat calls are always there.
  ASSERT_GE(seen.size(), 3u) << "too few watched calls parsed from strace's log";
  RecordProperty("strace_pairs", static_cast<int>(seen.size()));
  RecordProperty("cordon_pairs", static_cast<int>(have.size()));
  std::vector<std::string> missing, fewer;
  for (const auto& [k, n] : seen) {
    auto it = have.find(k);
    if (it == have.end()) {
      missing.push_back(display(k));
    } else if (c.fixture && it->second < n) {
      // Fixtures are deterministic: each call is made as often in both runs.
      fewer.push_back(display(k) + " (strace " + std::to_string(n) + ", cordon " +
                      std::to_string(it->second) + ")");
    }
  }
  EXPECT_TRUE(missing.empty()) << missing.size() << " of " << seen.size()
                               << " strace pairs missing from the trace:\n  "
                               << ::testing::PrintToString(missing);
  EXPECT_TRUE(fewer.empty()) << ::testing::PrintToString(fewer);
}

std::vector<Case> fixture_cases() {
  std::vector<Case> out;
  for (const char* name :
       {"create_write_rename", "mkdir_p", "link_rename_across", "access_probe", "stat_only",
        "list_dir", "exec_at", "openat2_beneath", "at_calls", "threads", "fork_tree", "vfork_exec",
        "connect_loopback", "weird_names", "outlive_parent", "io_uring_probe", "bad_pointer",
        "exit_code", "tty_read"}) {
    Case c{name, {name, "@DIR"}, true, {}};
    if (c.name == "exit_code") c.argv.push_back("0");
    out.push_back(c);
  }
  return out;
}

std::vector<Case> command_cases() {
  return {
      {"sh_echo_cat_rm", {"/bin/sh", "-c", "echo hi > f; cat f; rm f"}, false, {}},
      {"tar_create_extract",
       {"/bin/sh", "-c", "tar -cf x.tar src && mkdir out && tar -xf x.tar -C out"},
       false,
       {}},
      {"cp_recursive", {"cp", "-r", "src", "dst"}, false, {}},
      {"git_init",
       {"git", "init", "-q", "repo"},
       false,
       {{R"((\.git/)t[A-Za-z0-9]{6}$)", "$1tXXXXXX"}}},
      {"python_listdir", {"/usr/bin/python3", "-c", "import os; os.listdir('.')"}, false, {}},
  };
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, StraceCompare, ::testing::ValuesIn(fixture_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Commands, StraceCompare, ::testing::ValuesIn(command_cases()), case_name);

}  // namespace
}  // namespace cordon::ittest
