// The fuzzer's property, run over the seed corpus and deterministic
// mutations of it, so it is checked on every build and not only under clang.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/schema/policy/roundtrip_check.h"

namespace cordon::schema {
namespace {

std::vector<std::pair<std::string, std::string>> corpus() {
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& entry : std::filesystem::directory_iterator(CORDON_POLICY_CORPUS_DIR)) {
    std::ifstream in(entry.path(), std::ios::binary);
    files.emplace_back(entry.path().filename(),
                       std::string(std::istreambuf_iterator<char>(in), {}));
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(Corpus, IsThere) {
  EXPECT_GE(corpus().size(), 5u);
}

TEST(Corpus, EachFileRoundTrips) {
  for (const auto& [name, text] : corpus()) {
    EXPECT_EQ(testing::check_round_trip(text), "") << name;
  }
}

// Bytes that sit on the grammar's edges: delimiters, escapes, line breaks,
// comment starts, and bytes that are not UTF-8.
constexpr std::string_view kInteresting = "\"\\{}[],#\n\r\t ~./:-*0x\xff\xc3";

TEST(Corpus, MutationsKeepTheProperty) {
  size_t checked = 0;
  for (const auto& [name, text] : corpus()) {
    for (size_t i = 0; i <= text.size(); ++i) {
      std::vector<std::string> variants;
      if (i < text.size()) {
        variants.push_back(text.substr(0, i) + text.substr(i + 1));  // deletion
        variants.push_back(text.substr(0, i));                       // truncation
      }
      for (char c : kInteresting) {
        variants.push_back(text.substr(0, i) + c + text.substr(i));  // insertion
        if (i < text.size()) {
          std::string replaced = text;
          replaced[i] = c;
          variants.push_back(std::move(replaced));
        }
      }
      for (const std::string& input : variants) {
        std::string failure = testing::check_round_trip(input);
        ASSERT_EQ(failure, "") << name << " mutated at byte " << i;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 10000u);
}

}  // namespace
}  // namespace cordon::schema
