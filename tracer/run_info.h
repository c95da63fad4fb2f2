// What a trace records about the run itself: who, where, on what.
#pragma once

#include <string>
#include <vector>

#include "schema/trace_db.h"

namespace cordon::tracer {

schema::RunInfo collect_run_info(const std::vector<std::string>& command);
int64_t unix_now_ns();

}  // namespace cordon::tracer
