// Lexer: policy text to tokens, with 1-based line and byte column.
//
// Internal to the policy library. Strings come out decoded (escapes applied,
// raw bytes kept as they are); a string may not span lines.
#pragma once

#include <string>
#include <string_view>

#include "util/result.h"

namespace cordon::schema {

struct Token {
  enum class Type {
    kIdent,
    kString,
    kNumber,
    kLBrace,
    kRBrace,
    kLBracket,
    kRBracket,
    kComma,
    kEnd
  };
  Type type = Type::kEnd;
  std::string text;  // identifier or digits as written; decoded bytes of a string
  int line = 0;
  int column = 0;
};

// "FILE:LINE:COLUMN: message", the one shape of every syntax error.
util::Error syntax_error(std::string_view file, int line, int column, std::string_view message);

// What a token looks like in "expected X, found Y" messages.
std::string describe(const Token& token);

class Lexer {
 public:
  // A leading UTF-8 byte order mark, which some editors add, is skipped; it
  // still counts toward the columns of line 1.
  Lexer(std::string_view text, std::string_view file) : text_(text), file_(file) {
    if (text_.starts_with("\xef\xbb\xbf")) pos_ = 3;
  }

  // The next token; kEnd at the end of input, repeatedly.
  util::Result<Token> next();

 private:
  void skip_space_and_comments();
  util::Result<Token> string_token();
  util::Error error_at(size_t pos, std::string_view message) const;
  int column_of(size_t pos) const { return static_cast<int>(pos - line_start_) + 1; }

  std::string_view text_;
  std::string_view file_;
  size_t pos_ = 0;
  size_t line_start_ = 0;
  int line_ = 1;
};

}  // namespace cordon::schema
