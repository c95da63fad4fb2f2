// The fragment as policy text. Everything that is not a rule is a comment,
// and every name in a comment is quoted the way a rule quotes it, so a path
// with a newline or bidi control cannot break out of its line or hide.
#include <fmt/core.h>

#include "drafter/drafter.h"
#include "schema/policy/policy.h"
#include "util/path.h"

namespace cordon::drafter {
namespace {

constexpr size_t kWidth = 100;
constexpr size_t kShownNames = 5;
constexpr size_t kShownMissing = 20;

using schema::quote_policy_string;

// "# text", wrapped at spaces; continuation lines indented by two more.
void comment(std::string& out, std::string_view indent, std::string_view text) {
  // Leading spaces of the text are an indent of their own and are kept.
  size_t start = text.find_first_not_of(' ');
  if (start == std::string_view::npos) start = text.size();
  std::string prefix = fmt::format("{}# {}", indent, text.substr(0, start));
  std::string line = prefix;
  bool wrapped = false;
  while (start <= text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view word = text.substr(start, end - start);
    if (line.size() > prefix.size() && line.size() + 1 + word.size() > kWidth) {
      out += line + "\n";
      if (!wrapped) prefix += "  ";
      wrapped = true;
      line = prefix;
    }
    if (line.size() > prefix.size()) line += ' ';
    line += word;
    start = end + 1;
  }
  out += line + "\n";
}

std::string ops_text(const std::vector<OpCount>& ops) {
  std::string out;
  for (const OpCount& o : ops) {
    if (!out.empty()) out += ", ";
    out += o.op;
    if (o.count > 1) out += fmt::format(" \u00d7{}", o.count);
  }
  return out;
}

std::string relative(const std::string& path, const std::string& base) {
  return base == "/" ? path.substr(1) : path.substr(base.size() + 1);
}

std::string covers_text(const Grant& g) {
  std::string out;
  for (size_t i = 0; i < g.covers.size() && i < kShownNames; ++i) {
    if (i) out += ", ";
    out += fmt::format("{} ({})", quote_policy_string(relative(g.covers[i].path, g.path)),
                       ops_text(g.covers[i].ops));
  }
  if (g.covers.size() > kShownNames)
    out += fmt::format(" and {} more", g.covers.size() - kShownNames);
  return out;
}

void header(std::string& out, const Draft& d) {
  comment(out, "",
          "Draft policy fragment from cordon draft: a proposal for a person to read before adding "
          "it to a policy, not a record to apply unseen. Learn mode reads system call arguments "
          "that another thread of the program could change after the read.");
  comment(out, "",
          "It grants only what the current policy does not (the base, user and workspace layers "
          "and each --policy file, with \".\" and \"~\" of the traced run). Paths under that run's "
          "home are written \"~/...\".");
  out += "#\n# Traced:\n";
  for (const RunRef& r : d.runs) {
    std::string argv;
    for (const std::string& a : r.argv) argv += (argv.empty() ? "" : " ") + quote_policy_string(a);
    std::string status = r.state;
    if (r.exit_code) status += fmt::format(", exit {}", *r.exit_code);
    comment(out, "",
            fmt::format("  run {} of {} ({}) in {}: {}", r.run_id, quote_policy_string(r.trace),
                        status, quote_policy_string(r.cwd), argv));
  }
  if (!d.review.empty()) {
    out += "#\n";
    comment(
        out, "",
        fmt::format("REVIEW ({}): decide on each before applying this draft.", d.review.size()));
    for (const ReviewItem& item : d.review) {
      comment(out, "", fmt::format("  - {}: {}", quote_policy_string(item.path), item.reason));
    }
  }
  if (!d.conflicts.empty()) {
    out += "#\n";
    comment(
        out, "",
        fmt::format("CONFLICTS WITH THE CURRENT POLICY ({}): resolving each is part of applying "
                    "this draft.",
                    d.conflicts.size()));
    for (const Conflict& c : d.conflicts) {
      comment(out, "",
              fmt::format("  - {} at {} (layer {}): {}.", c.rule, c.origin,
                          util::printable(c.layer), c.what));
    }
  }
}

void grant_lines(std::string& out, const Grant& g) {
  for (const std::string& r : g.review) comment(out, "  ", "REVIEW: " + r);
  comment(out, "  ", ops_text(g.ops));
  if (!g.covers.empty()) comment(out, "  ", "for " + covers_text(g));
  for (const std::string& n : g.notes) comment(out, "  ", n);
  std::string rule = fmt::format("{} {}", g.access == Access::kWrite ? "allow_write" : "allow_read",
                                 quote_policy_string(g.written));
  if (g.commented_out) {
    out += fmt::format("  # {}    # left disabled: enable it only on purpose\n", rule);
  } else {
    out += fmt::format("  {}\n", rule);
  }
}

void trailer(std::string& out, const Draft& d) {
  auto section = [&](std::string title) {
    out += "\n";
    comment(out, "", title);
  };
  if (!d.passed_through.empty()) {
    section("On the way to other grants (bwrap creates them for the mounts below), not granted:");
    std::string names;
    for (const std::string& p : d.passed_through)
      names += (names.empty() ? "" : ", ") + quote_policy_string(p);
    comment(out, "", "  " + names);
  }
  if (!d.not_found.empty()) {
    section(fmt::format("Looked for, never there and never created: not granted ({}):",
                        d.not_found.size()));
    for (size_t i = 0; i < d.not_found.size() && i < kShownMissing; ++i) {
      comment(out, "",
              fmt::format("  {} ({})", quote_policy_string(d.not_found[i].path),
                          ops_text(d.not_found[i].ops)));
    }
    if (d.not_found.size() > kShownMissing)
      comment(out, "", fmt::format("  and {} more", d.not_found.size() - kShownMissing));
  }
  if (!d.loopback.empty()) {
    section("Loopback connects need no rule: the sandbox has a loopback of its own:");
    for (const Endpoint& e : d.loopback)
      comment(out, "", fmt::format("  {} \u00d7{}", e.address, e.count));
  }
  if (!d.abstract_sockets.empty()) {
    section(
        "Abstract Unix sockets, not drafted: they belong to a network namespace and the sandbox "
        "has "
        "its own, so a host service listening on one stays out of reach:");
    for (const Endpoint& e : d.abstract_sockets) {
      comment(out, "", fmt::format("  {} \u00d7{}", quote_policy_string("@" + e.address), e.count));
    }
  }
  if (!d.notes.empty()) {
    section("Also:");
    for (const std::string& n : d.notes) comment(out, "", "  " + n);
  }
}

}  // namespace

std::string format_text(const Draft& d) {
  std::string out;
  header(out, d);
  if (d.grants.empty() && d.net.empty()) {
    out += "\n# Nothing to add: the current policy already grants what the trace did.\n";
  }
  if (!d.grants.empty()) {
    out += "\nfs {\n";
    for (size_t i = 0; i < d.grants.size(); ++i) {
      if (i) out += "\n";
      grant_lines(out, d.grants[i]);
    }
    out += "}\n";
  }
  if (!d.net.empty()) {
    out += "\nnet {\n";
    for (size_t i = 0; i < d.net.size(); ++i) {
      const NetGrant& n = d.net[i];
      if (i) out += "\n";
      for (const std::string& r : n.review) comment(out, "  ", "REVIEW: " + r);
      comment(
          out, "  ",
          fmt::format("connect{}", n.seen.count > 1 ? fmt::format(" \u00d7{}", n.seen.count) : ""));
      out += fmt::format("  {} {}\n", n.kind, quote_policy_string(n.value));
    }
    out += "}\n";
  }
  trailer(out, d);
  return out;
}

}  // namespace cordon::drafter
