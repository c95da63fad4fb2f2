// draft_traces: stream every run into a collector per context, derive and
// fold the needs, then dress the result as grants with provenance, conflicts
// and review flags.
#include <arpa/inet.h>

#include <fmt/core.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <unordered_map>

#include "drafter/collector.h"
#include "drafter/conflicts.h"
#include "drafter/drafter.h"
#include "drafter/fold.h"
#include "drafter/needs.h"
#include "drafter/review.h"
#include "schema/policy/destination.h"
#include "schema/policy/policy.h"
#include "schema/trace_db.h"
#include "util/path.h"

namespace cordon::drafter {
namespace {

// The reserved name of the host's loopback (docs/network.md).
constexpr const char* kHostInternal = "host.internal";

// Loopback, link-local, private and shared (RFC 1918, 100.64/10, ULA)
// addresses: cordon run's proxy dials those only for a rule naming them.
bool is_local_or_private(const std::string& addr) {
  unsigned char b[16];
  if (::inet_pton(AF_INET, addr.c_str(), b) == 1) {
    return b[0] == 127 || b[0] == 10 || (b[0] == 172 && (b[1] & 0xf0) == 16) ||
           (b[0] == 192 && b[1] == 168) || (b[0] == 169 && b[1] == 254) ||
           (b[0] == 100 && (b[1] & 0xc0) == 64) || b[0] == 0;
  }
  if (::inet_pton(AF_INET6, addr.c_str(), b) != 1) return false;
  static const unsigned char loopback[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  return std::memcmp(b, loopback, 16) == 0 || (b[0] & 0xfe) == 0xfc ||
         (b[0] == 0xfe && (b[1] & 0xc0) == 0x80);
}

// Summed by act, in Act order; the earliest event of each is its provenance.
std::vector<OpCount> op_counts(const std::vector<ActStat>& acts) {
  ActStat sum[kActCount] = {};
  for (const ActStat& a : acts) {
    ActStat& s = sum[static_cast<int>(a.act)];
    if (s.count == 0 || std::tie(a.run, a.first_seq) < std::tie(s.run, s.first_seq)) {
      s.run = a.run, s.first_seq = a.first_seq;
    }
    s.count += a.count;
  }
  std::vector<OpCount> out;
  for (int i = 0; i < kActCount; ++i) {
    const ActStat& s = sum[i];
    if (s.count)
      out.push_back(
          OpCount{std::string(act_label(static_cast<Act>(i))), s.count, s.run, s.first_seq});
  }
  return out;
}

class Drafter {
 public:
  explicit Drafter(const PolicyLoader& loader) : loader_(loader) {}
  util::Status read(const std::string& file);
  Draft finish();

 private:
  util::Result<size_t> context_for(const std::string& cwd, const std::string& home);
  // The grant, and review flags for the names it covers.
  Grant dress(Folded& f, std::vector<ReviewItem>& review);
  void add_net();
  void add_notes(int64_t private_tmp);

  const PolicyLoader& loader_;
  Draft draft_;
  std::deque<Context> contexts_;
  std::deque<Reviewer> reviewers_;  // one per context
  std::map<std::pair<std::string, std::string>, size_t> context_index_;
  ConflictSet conflicts_;
};

util::Result<size_t> Drafter::context_for(const std::string& cwd, const std::string& home) {
  auto key = std::make_pair(cwd, home);
  auto it = context_index_.find(key);
  if (it != context_index_.end()) return it->second;
  auto policy = loader_(cwd, home);
  if (!policy) return policy.error();
  contexts_.push_back(Context{std::move(*policy), {}});
  reviewers_.emplace_back(home);
  context_index_.emplace(key, contexts_.size() - 1);
  return contexts_.size() - 1;
}

util::Status Drafter::read(const std::string& file) {
  auto db = schema::TraceDb::open_for_reading(file);
  if (!db) return db.error();
  auto runs = db->runs(/*count_events=*/false);
  if (!runs) return runs.error();
  // run id -> (index into draft_.runs, context)
  std::map<int64_t, std::pair<uint32_t, Context*>> by_id;
  for (const schema::RunSummary& r : *runs) {
    auto ci = context_for(r.cwd, r.home);
    if (!ci) return ci.error();
    by_id[r.id] = {static_cast<uint32_t>(draft_.runs.size()), &contexts_[*ci]};
    draft_.runs.push_back(RunRef{file, r.id, r.argv, r.cwd, r.home, r.state, r.exit_code});
  }
  // The proxy's records first: a run that has them had its network
  // through the proxy, whose records name what its connects reached.
  auto net = db->for_each_net({}, [&](int64_t run_id, const schema::NetRecord& r) {
    auto it = by_id.find(run_id);
    if (it != by_id.end()) it->second.second->collector.add_net(r, it->second.first);
  });
  if (!net) return net.error();
  int64_t last_id = -1;
  std::pair<uint32_t, Context*> current{0, nullptr};
  return db->for_each_event({}, [&](int64_t run_id, const schema::EventRecord& e) {
    if (run_id != last_id) {
      auto it = by_id.find(run_id);
      current = it == by_id.end() ? std::pair<uint32_t, Context*>{0, nullptr} : it->second;
      last_id = run_id;
    }
    if (current.second) current.second->collector.add(e, current.first);
    return true;
  });
}

Grant Drafter::dress(Folded& f, std::vector<ReviewItem>& review) {
  const Reviewer& reviewer = reviewers_[f.context];
  Grant g;
  g.access = f.access == Need::kWrite ? Access::kWrite : Access::kRead;
  g.path = f.path;
  g.written = reviewer.home_form(f.path);
  g.notes = std::move(f.notes);
  std::sort(f.sources.begin(), f.sources.end(),
            [](const Source& a, const Source& b) { return *a.path < *b.path; });
  std::vector<ActStat> all;
  for (size_t i = 0; i < f.sources.size();) {
    // One name can come from several contexts: its acts add up.
    std::vector<ActStat> acts;
    size_t j = i;
    for (; j < f.sources.size() && *f.sources[j].path == *f.sources[i].path; ++j) {
      // A name reaches one grant both by its own need and by its
      // directory's; its acts count once.
      bool again = false;
      for (size_t k = i; k < j; ++k) again = again || f.sources[k].info == f.sources[j].info;
      if (!again)
        acts.insert(acts.end(), f.sources[j].info->acts.begin(), f.sources[j].info->acts.end());
    }
    all.insert(all.end(), acts.begin(), acts.end());
    const std::string& name = *f.sources[i].path;
    if (name != f.path) g.covers.push_back(PathOps{name, op_counts(acts)});
    // A write folded into a broader grant keeps its own flag.
    bool writes = std::any_of(acts.begin(), acts.end(), [](const ActStat& a) {
      return writes_content(a.act) || own_need(a.act) == Need::kWrite;
    });
    if (writes && name != f.path) {
      if (auto why = reviewer.runs_code_later(name)) {
        review.push_back(
            ReviewItem{name, fmt::format("{} (written inside the drafted grant on {})", *why,
                                         schema::quote_policy_string(g.written))});
      }
    }
    i = j;
  }
  g.ops = op_counts(all);
  reviewer.review(g);
  return g;
}

void Drafter::add_net() {
  std::map<std::pair<std::string, std::string>, NetGrant> grants;  // (value, kind)
  std::map<std::string, Endpoint> loopback, abstract;
  // One proposal per destination, unless a rule of the run's policy
  // already allows it; `why` flags it for review.
  auto propose = [&](const Context& c, schema::RuleKind kind, const std::string& dest,
                     const Sighting& seen, const std::string& why) {
    auto parsed = schema::parse_destination(dest);
    if (!parsed) {
      draft_.notes.push_back(
          fmt::format("connect to {} \u00d7{}: not a destination a rule can name ({})",
                      util::printable(dest), seen.count, util::printable(parsed.error().message)));
      return;
    }
    for (const schema::Rule* r : c.policy.rules_of(kind)) {
      const auto& d = *r->destination;
      if (d.host_kind == parsed->host_kind && d.host == parsed->host &&
          d.port_first <= parsed->port_first && parsed->port_last <= d.port_last) {
        return;
      }
    }
    std::string value = schema::format_destination(*parsed);
    std::string kind_name(schema::rule_kind_name(kind));
    auto [it, fresh] = grants.try_emplace(
        std::pair{value, kind_name},
        NetGrant{kind_name, value, {"connect", 0, seen.run, seen.first_seq}, {}});
    it->second.seen.count += seen.count;
    auto& review = it->second.review;
    if (!why.empty() && std::find(review.begin(), review.end(), why) == review.end())
      review.push_back(why);
  };
  for (const Context& c : contexts_) {
    for (const auto& [dest, seen] : c.collector.tcp) {
      propose(c, schema::RuleKind::kAllowTcp, dest, seen,
              "not a loopback address: check the command should reach it (the trace holds "
              "addresses, not names, and does not say whether the socket was TCP or UDP)");
    }
    for (const auto& [key, p] : c.collector.proxied) {
      const auto& [proto, dest] = key;
      std::string why;
      if (!p.named) {
        why =
            "an address the command connected to without looking up a name: check it should "
            "reach it";
      } else if (!dest.starts_with(std::string(kHostInternal) + ":")) {
        for (const std::string& a : p.dialled) {
          if (!is_local_or_private(a)) continue;
          why = fmt::format(
              "reached at {}, a local or private address: cordon run dials that only with a rule "
              "naming the address as well",
              a);
          break;
        }
      }
      propose(c, proto == "udp" ? schema::RuleKind::kAllowUdp : schema::RuleKind::kAllowTcp, dest,
              p.seen, why);
    }
    for (const auto& [addr, seen] : c.collector.loopback) {
      loopback.try_emplace(addr, Endpoint{addr, 0}).first->second.count += seen.count;
    }
    for (const auto& [name, seen] : c.collector.abstract_sockets) {
      abstract.try_emplace(name, Endpoint{name, 0}).first->second.count += seen.count;
    }
  }
  for (auto& [key, n] : grants) {
    for (const std::string& why : n.review) draft_.review.push_back(ReviewItem{n.value, why});
    draft_.net.push_back(std::move(n));
  }
  for (auto& [a, e] : loopback) draft_.loopback.push_back(e);
  for (auto& [a, e] : abstract) draft_.abstract_sockets.push_back(e);
}

void Drafter::add_notes(int64_t private_tmp) {
  int64_t never = 0, faults = 0, other = 0;
  std::map<std::string, int64_t> refused;
  for (const Context& c : contexts_) {
    never += c.collector.device_or_proc;
    faults += c.collector.faults;
    other += c.collector.other_connects;
    for (const auto& [call, n] : c.collector.refused) refused[call] += n;
  }
  if (private_tmp) {
    draft_.notes.push_back(fmt::format(
        "{} name{} made, removed or looked at directly in /tmp: no grant, the sandbox has a "
        "writable /tmp of its own",
        private_tmp, private_tmp == 1 ? "" : "s"));
  }
  if (never) {
    draft_.notes.push_back(
        fmt::format("{} call{} on /dev or /proc: never drafted, every sandbox has its own", never,
                    never == 1 ? "" : "s"));
  }
  if (faults) {
    draft_.notes.push_back(fmt::format(
        "{} call{} whose path could not be read (see cordon show --events): not drafted", faults,
        faults == 1 ? "" : "s"));
  }
  if (other) {
    draft_.notes.push_back(fmt::format("{} connect{} of other address families: nothing to draft",
                                       other, other == 1 ? "" : "s"));
  }
  for (const auto& [call, n] : refused) {
    draft_.notes.push_back(fmt::format(
        "{} refused \u00d7{}: learn mode answers ENOSYS, and programs fall back to calls it sees",
        util::printable(call), n));
  }
}

Draft Drafter::finish() {
  Needs needs;
  for (size_t i = 0; i < contexts_.size(); ++i) derive_needs(contexts_[i], i, needs, conflicts_);
  FoldResult folded = fold(std::move(needs.candidates), contexts_);

  for (Folded& f : folded.grants) {
    Grant g = dress(f, draft_.review);
    if (g.access == Access::kWrite) {
      for (const Context& c : contexts_) {
        for (const RuleRef& r : grants_below(c.policy, g.path))
          conflicts_.inside_write(*r.rule, r.layer->name, g.path);
      }
    }
    for (const std::string& reason : g.review) draft_.review.push_back(ReviewItem{g.path, reason});
    draft_.grants.push_back(std::move(g));
  }
  std::unordered_map<std::string_view, const Grant*> by_path;
  for (const Grant& g : draft_.grants) by_path.emplace(g.path, &g);
  // The nearest grant strictly above `path`, if any.
  auto grant_above = [&](std::string_view path) -> const Grant* {
    for (size_t slash = path.rfind('/'); slash != std::string_view::npos && path != "/";
         slash = slash == 0 ? std::string_view::npos : path.rfind('/', slash - 1)) {
      auto it = by_path.find(slash == 0 ? std::string_view("/") : path.substr(0, slash));
      if (it != by_path.end()) return it->second;
    }
    return nullptr;
  };
  // A write grant nested in a read grant is a mount inside a mount: say so.
  for (Grant& inner : draft_.grants) {
    const Grant* outer = inner.access == Access::kWrite ? grant_above(inner.path) : nullptr;
    if (outer) {
      inner.notes.push_back(fmt::format("a writable mount inside the read-only grant on {}",
                                        schema::quote_policy_string(outer->written)));
    }
  }
  for (const Context& c : contexts_) {
    for (const auto& [path, seen] : c.collector.exec_of_written) {
      draft_.review.push_back(
          ReviewItem{path, "runs a file this run wrote: what it runs was not there before"});
    }
  }
  draft_.review.insert(draft_.review.end(), needs.review.begin(), needs.review.end());
  draft_.passed_through = std::move(folded.passed_through);

  std::map<std::string, std::vector<ActStat>> not_found;
  for (const Source& s : needs.not_found) {
    if (by_path.count(*s.path) || grant_above(*s.path)) continue;
    auto& acts = not_found[*s.path];
    acts.insert(acts.end(), s.info->acts.begin(), s.info->acts.end());
  }
  for (auto& [path, acts] : not_found) draft_.not_found.push_back(PathOps{path, op_counts(acts)});

  add_net();
  add_notes(needs.private_tmp);
  draft_.conflicts = conflicts_.take();
  std::sort(draft_.review.begin(), draft_.review.end());
  draft_.review.erase(std::unique(draft_.review.begin(), draft_.review.end()), draft_.review.end());
  return std::move(draft_);
}

}  // namespace

util::Result<Draft> draft_traces(const std::vector<std::string>& trace_files,
                                 const PolicyLoader& current_policy) {
  Drafter drafter(current_policy);
  for (const std::string& file : trace_files) {
    auto status = drafter.read(file);
    if (!status) return status.error();
  }
  return drafter.finish();
}

}  // namespace cordon::drafter
