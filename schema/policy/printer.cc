// Canonical policy text. The printer never emits anything the lexer reads
// differently: every byte outside printable ASCII and harmless UTF-8 is a
// \xHH escape, so the output is plain, reviewable text whatever the paths hold.
#include <fmt/core.h>

#include "schema/policy/policy.h"

namespace cordon::schema {
namespace {

// Code point of the valid UTF-8 sequence at s[i] and its length; length 0
// if the bytes there are not valid UTF-8.
std::pair<char32_t, size_t> decode_utf8(std::string_view s, size_t i) {
  unsigned char c = s[i];
  size_t n;
  char32_t cp;
  char32_t min;
  if (c < 0x80) return {c, 1};
  if ((c & 0xe0) == 0xc0) {
    n = 2, cp = c & 0x1f, min = 0x80;
  } else if ((c & 0xf0) == 0xe0) {
    n = 3, cp = c & 0x0f, min = 0x800;
  } else if ((c & 0xf8) == 0xf0) {
    n = 4, cp = c & 0x07, min = 0x10000;
  } else {
    return {0, 0};
  }
  if (i + n > s.size()) return {0, 0};
  for (size_t k = 1; k < n; ++k) {
    unsigned char cc = s[i + k];
    if ((cc & 0xc0) != 0x80) return {0, 0};
    cp = (cp << 6) | (cc & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return {0, 0};
  return {cp, n};
}

// Valid UTF-8 that still should not appear raw in a policy a human reviews:
// C1 controls, invisible and line-breaking characters, and the bidi controls
// that can make text display in a different order than it parses.
bool is_invisible(char32_t cp) {
  return (cp >= 0x80 && cp <= 0x9f) || cp == 0xad || (cp >= 0x200b && cp <= 0x200f) ||
         (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x2069) || cp == 0xfeff;
}

void append_hex(std::string& out, unsigned char c) {
  static const char hex[] = "0123456789abcdef";
  out += "\\x";
  out += hex[c >> 4];
  out += hex[c & 15];
}

std::string quote(std::string_view bytes) {
  std::string out = "\"";
  for (size_t i = 0; i < bytes.size();) {
    unsigned char c = bytes[i];
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
      ++i;
    } else if (c == '\n') {
      out += "\\n";
      ++i;
    } else if (c == '\t') {
      out += "\\t";
      ++i;
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
      ++i;
    } else {
      auto [cp, n] = decode_utf8(bytes, i);
      if (n > 1 && !is_invisible(cp)) {
        out.append(bytes.substr(i, n));
        i += n;
      } else {
        // Escaping all n bytes of an invisible character (not just the first)
        // keeps the rest from being read as stray continuation bytes.
        size_t count = n > 1 ? n : 1;
        for (size_t k = 0; k < count; ++k) append_hex(out, bytes[i + k]);
        i += count;
      }
    }
  }
  out += '"';
  return out;
}

std::string format_value(const Rule& rule) {
  return rule.kind == RuleKind::kExpose ? rule.value : quote(rule.value);
}

}  // namespace

std::string quote_policy_string(std::string_view bytes) {
  return quote(bytes);
}

std::string print_policy(const Policy& policy) {
  std::string out;
  const auto& rules = policy.rules;
  size_t i = 0;
  while (i < rules.size()) {
    const Block block = rule_block(rules[i].kind);
    if (!out.empty()) out += '\n';
    out += fmt::format("{} {{\n", block_name(block));
    while (i < rules.size() && rule_block(rules[i].kind) == block) {
      const RuleKind kind = rules[i].kind;
      size_t end = i;
      while (end < rules.size() && rules[end].kind == kind) ++end;
      if (end - i == 1) {
        out += fmt::format("  {} {}\n", rule_kind_name(kind), format_value(rules[i]));
      } else {
        out += fmt::format("  {} [\n", rule_kind_name(kind));
        for (size_t k = i; k < end; ++k) out += fmt::format("    {},\n", format_value(rules[k]));
        out += "  ]\n";
      }
      i = end;
    }
    out += "}\n";
  }
  return out;
}

}  // namespace cordon::schema
