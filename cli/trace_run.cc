#include "cli/trace_run.h"

#include <unistd.h>

#include <cstdlib>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/policy_layers.h"
#include "enforcer/net/learn.h"
#include "enforcer/net_probe.h"
#include "schema/policy/policy.h"
#include "util/path.h"

namespace cordon::cli {

namespace {

// Network learning (enforcer/net/learn.h) as the tracer's sandbox hook: the
// tracer starts the proxy and runs the helper without knowing either, and
// the proxy's records go into the run once the sandbox has ended.
class NetLearning : public tracer::SandboxHook {
 public:
  explicit NetLearning(enforcer::net::LearnNet net) : net_(std::move(net)) {}
  std::vector<std::string> bwrap_args() const override { return net_.bwrap_args; }
  std::vector<int> fds() const override {
    std::vector<int> out;
    for (const auto& fd : net_.fds) out.push_back(fd.get());
    return out;
  }
  std::vector<std::string> prefix() const override { return net_.prefix; }
  void start() override { net_.session->start(); }
  util::Status finish(schema::TraceDb& db, int64_t run_id) override {
    net_.session->stop();
    net_.fds.clear();
    if (auto st = db.write_net(run_id, net_.session->records()); !st)
      return util::Error{"recording the network: " + st.error().message};
    return {};
  }

 private:
  enforcer::net::LearnNet net_;
};

// The hook for --net (proxy by default where the host has the tools); null
// for the host's network. The exit code to stop with, after reporting, on
// an error.
std::optional<int> network_hook(const cxxopts::ParseResult& parsed, const std::string& name,
                                std::shared_ptr<tracer::SandboxHook>& out) {
  std::string mode = parsed.count("net") ? parsed["net"].as<std::string>() : "";
  if (mode == "host") return std::nullopt;
  if (!mode.empty() && mode != "proxy") {
    report(name + ": --net must be proxy or host");
    return kUsage;
  }
  std::string upstream;
  if (parsed.count("dns-upstream")) {
    upstream = parsed["dns-upstream"].as<std::string>();
  } else if (const char* up = std::getenv("CORDON_DNS_UPSTREAM"); up && *up) {
    upstream = up;
  }
  auto net = enforcer::net::prepare_learning(upstream);
  if (!net) {
    auto tools = enforcer::find_net_tools();
    if (mode.empty() && (tools.ip.empty() || tools.iptables.empty())) {
      report(
          fmt::format("learning on the host's network ({}): drafts will carry addresses, not names",
                      net.error().message));
      return std::nullopt;
    }
    report(name + ": " + net.error().message);
    return kCordonFailed;
  }
  out = std::make_shared<NetLearning>(std::move(*net));
  return std::nullopt;
}

}  // namespace

void add_trace_options(cxxopts::Options& options) {
  options.add_options()("policy", "add this policy layer; its denies apply while learning",
                        cxxopts::value<std::vector<std::string>>())(
      "timeout", "end the command after this many seconds", cxxopts::value<double>())(
      "net",
      "proxy: the sandbox's own network through cordon's proxy, which records names (the "
      "default where ip and iptables exist); host: the host's network as it is",
      cxxopts::value<std::string>())("dns-upstream",
                                     "resolver the proxy asks while learning (ADDR[:PORT])",
                                     cxxopts::value<std::string>());
}

std::optional<int> trace_options(const cxxopts::ParseResult& parsed, const std::string& name,
                                 const std::vector<std::string>& command,
                                 const std::string& output_key, tracer::TraceOptions& out) {
  if (!parsed.unmatched().empty()) {
    report(name + ": unexpected argument '" + parsed.unmatched().front() +
           "' (the command goes after --)");
    return kUsage;
  }
  out.command = command;
  out.output = parsed.count(output_key) ? parsed[output_key].as<std::string>()
                                        : tracer::default_trace_path(command[0]);
  if (parsed.count("timeout")) {
    double t = parsed["timeout"].as<double>();
    if (!(t > 0)) {
      report(name + ": --timeout must be a positive number of seconds");
      return kUsage;
    }
    out.timeout_seconds = t;
  }
  // The layers are read before the command runs, so a policy error costs
  // nothing.
  std::string cwd;
  auto layers = current_policy(name, parsed, cwd);
  if (!layers) return kCordonFailed;
  for (const schema::Rule* rule : layers->rules_of(schema::RuleKind::kDeny)) {
    out.deny.push_back(rule->value);
  }
  out.status_line = ::isatty(STDERR_FILENO) == 1;
  return network_hook(parsed, name, out.hook);
}

std::optional<tracer::TraceOutcome> run_and_report(const tracer::TraceOptions& options) {
  auto outcome = tracer::run_trace(options);
  if (!outcome) {
    report(outcome.error().message);
    return std::nullopt;
  }
  if (!outcome->message.empty()) report(outcome->message);
  fmt::print(stderr, "cordon: trace: {} (run {}, {} events, {} processes)\n",
             util::printable(outcome->output), outcome->run_id, outcome->events,
             outcome->processes);
  return std::move(*outcome);
}

}  // namespace cordon::cli
