// The property both the fuzzer and the corpus test check on any input:
// parsing either fails with a well-formed "FILE:LINE:COLUMN: message" error,
// or succeeds and print -> parse -> print is a fixed point.
#pragma once

#include <string>
#include <string_view>

namespace cordon::schema::testing {

// Empty when the property holds, otherwise what went wrong.
std::string check_round_trip(std::string_view input);

}  // namespace cordon::schema::testing
