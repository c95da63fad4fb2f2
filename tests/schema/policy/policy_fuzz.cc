// libFuzzer target: any input either fails to parse with a well-formed
// positioned error, or parses and print -> parse -> print is a fixed point.
// Seed corpus: fixtures/policy/corpus/.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "tests/schema/policy/roundtrip_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string failure = cordon::schema::testing::check_round_trip(
      std::string_view(reinterpret_cast<const char*>(data), size));
  if (!failure.empty()) {
    std::fprintf(stderr, "%s\n", failure.c_str());
    std::abort();
  }
  return 0;
}
