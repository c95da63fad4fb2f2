// What `cordon trace` and `cordon learn` share: reading their common options
// into tracer::TraceOptions, and running the trace with its one-line report.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <cxxopts.hpp>

#include "tracer/tracer.h"

namespace cordon::cli {

// Adds --policy (repeatable), --timeout, --net and --dns-upstream.
void add_trace_options(cxxopts::Options& options);

// Fills `out` from the parsed options. `output_key` names the option that
// holds the trace path ("output" for trace, "trace" for learn). The denies of
// every layer (base, user, workspace, --policy) are applied while learning,
// as they will be when the policy is enforced, so the trace shows what they
// hide. The network goes through cordon's proxy unless --net host (or the
// host lacks what that needs: then with a warning), so the run's `net`
// records name what it reached. Returns the exit code to stop with, after
// reporting, on an error.
std::optional<int> trace_options(const cxxopts::ParseResult& parsed, const std::string& name,
                                 const std::vector<std::string>& command,
                                 const std::string& output_key, tracer::TraceOptions& out);

// Runs the trace and reports where it went; nullopt (after reporting) when
// cordon itself failed before the command ran.
std::optional<tracer::TraceOutcome> run_and_report(const tracer::TraceOptions& options);

}  // namespace cordon::cli
