#include "schema/policy/lexer.h"

#include <fmt/core.h>

#include "util/path.h"

namespace cordon::schema {
namespace {

bool is_ident_start(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_ident_char(char c) {
  return is_ident_start(c) || is_digit(c);
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The character starting at `pos` as one unit for a message: a whole UTF-8
// sequence when the lead byte announces one, so “ reads as “ and not \xe2.
std::string_view char_at(std::string_view text, size_t pos) {
  unsigned char c = text[pos];
  size_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
  return text.substr(pos, n);
}

constexpr std::string_view kEscapeHint = "(use \\\\, \\\", \\n, \\t or \\xHH)";

}  // namespace

util::Error syntax_error(std::string_view file, int line, int column, std::string_view message) {
  return util::Error{fmt::format("{}:{}:{}: {}", util::printable(file), line, column, message)};
}

std::string describe(const Token& token) {
  switch (token.type) {
    case Token::Type::kIdent:
      return fmt::format("\"{}\"", token.text);
    case Token::Type::kString:
      return "a string";
    case Token::Type::kNumber:
      return "a number";
    case Token::Type::kLBrace:
      return "\"{\"";
    case Token::Type::kRBrace:
      return "\"}\"";
    case Token::Type::kLBracket:
      return "\"[\"";
    case Token::Type::kRBracket:
      return "\"]\"";
    case Token::Type::kComma:
      return "\",\"";
    case Token::Type::kEnd:
      return "end of file";
  }
  return "?";
}

util::Error Lexer::error_at(size_t pos, std::string_view message) const {
  return syntax_error(file_, line_, column_of(pos), message);
}

void Lexer::skip_space_and_comments() {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == '\n') {
      ++pos_;
      ++line_;
      line_start_ = pos_;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      ++pos_;
    } else if (c == '#') {
      size_t eol = text_.find('\n', pos_);
      pos_ = eol == std::string_view::npos ? text_.size() : eol;
    } else {
      return;
    }
  }
}

util::Result<Token> Lexer::next() {
  skip_space_and_comments();
  Token token;
  token.line = line_;
  token.column = column_of(pos_);
  if (pos_ >= text_.size()) return token;

  char c = text_[pos_];
  auto single = [&](Token::Type type) {
    token.type = type;
    ++pos_;
    return token;
  };
  switch (c) {
    case '{':
      return single(Token::Type::kLBrace);
    case '}':
      return single(Token::Type::kRBrace);
    case '[':
      return single(Token::Type::kLBracket);
    case ']':
      return single(Token::Type::kRBracket);
    case ',':
      return single(Token::Type::kComma);
    case '"':
      return string_token();
    default:
      break;
  }
  if (is_ident_start(c) || is_digit(c)) {
    bool number = is_digit(c);
    size_t end = pos_;
    while (end < text_.size() && (number ? is_digit(text_[end]) : is_ident_char(text_[end]))) {
      ++end;
    }
    token.type = number ? Token::Type::kNumber : Token::Type::kIdent;
    token.text = text_.substr(pos_, end - pos_);
    pos_ = end;
    return token;
  }
  return error_at(
      pos_, fmt::format("unexpected character \"{}\"", util::printable(char_at(text_, pos_))));
}

util::Result<Token> Lexer::string_token() {
  Token token{Token::Type::kString, "", line_, column_of(pos_)};
  const size_t open = pos_;
  size_t i = pos_ + 1;
  while (true) {
    if (i >= text_.size() || text_[i] == '\n') return error_at(open, "unterminated string");
    char c = text_[i];
    if (c == '"') break;
    if (c != '\\') {
      token.text += c;
      ++i;
      continue;
    }
    if (i + 1 >= text_.size() || text_[i + 1] == '\n') return error_at(open, "unterminated string");
    char e = text_[i + 1];
    if (e == '\\' || e == '"') {
      token.text += e;
      i += 2;
    } else if (e == 'n') {
      token.text += '\n';
      i += 2;
    } else if (e == 't') {
      token.text += '\t';
      i += 2;
    } else if (e == 'x') {
      int hi = i + 2 < text_.size() ? hex_value(text_[i + 2]) : -1;
      int lo = i + 3 < text_.size() ? hex_value(text_[i + 3]) : -1;
      if (hi < 0 || lo < 0) {
        return error_at(i, fmt::format("bad escape \"\\x\": needs two hex digits {}", kEscapeHint));
      }
      token.text += static_cast<char>(hi * 16 + lo);
      i += 4;
    } else if (e > 0x20 && e < 0x7f) {
      return error_at(i, fmt::format("bad escape \"\\{}\" {}", e, kEscapeHint));
    } else {
      return error_at(i, fmt::format("bad escape after \"\\\" {}", kEscapeHint));
    }
  }
  pos_ = i + 1;
  return token;
}

}  // namespace cordon::schema
