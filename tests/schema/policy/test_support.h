// Shared fixtures for the policy tests: one context and short accessors.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "schema/policy/policy.h"

namespace cordon::schema::testing {

inline const ParseContext kCtx{"p.sbx", "/home/u", "/work/proj"};

inline Policy parse_ok(std::string_view text, const ParseContext& ctx = kCtx) {
  util::Result<Policy> p = parse_policy(text, ctx);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message);
  return p.ok() ? p.value() : Policy{};
}

inline std::string parse_error(std::string_view text, const ParseContext& ctx = kCtx) {
  util::Result<Policy> p = parse_policy(text, ctx);
  EXPECT_FALSE(p.ok()) << "parsed unexpectedly:\n" << text;
  return p.ok() ? "" : p.error().message;
}

inline std::vector<std::string> values(const Policy& p) {
  std::vector<std::string> out;
  for (const Rule& r : p.rules) out.push_back(r.value);
  return out;
}

}  // namespace cordon::schema::testing
