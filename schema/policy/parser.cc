// Recursive descent over the grammar
//   file   := block*
//   block  := NAME "{" rule* "}"
//   rule   := NAME ( scalar | "[" ( scalar ( "," scalar )* ","? )? "]" )
//   scalar := STRING | NUMBER
// Each value becomes one Rule, so a list of three is three rules with their
// own origins.
#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <optional>

#include "schema/policy/destination.h"
#include "schema/policy/lexer.h"
#include "schema/policy/policy.h"
#include "util/path.h"

namespace cordon::schema {
namespace {

constexpr std::array kAllKinds = {RuleKind::kAllowRead, RuleKind::kAllowWrite, RuleKind::kDenyWrite,
                                  RuleKind::kDeny,      RuleKind::kAllowTcp,   RuleKind::kAllowUdp,
                                  RuleKind::kExpose,    RuleKind::kPass};

std::optional<Block> find_block(std::string_view name) {
  for (Block b : {Block::kFs, Block::kNet, Block::kEnv}) {
    if (block_name(b) == name) return b;
  }
  return std::nullopt;
}

std::optional<RuleKind> find_rule(std::string_view name) {
  for (RuleKind k : kAllKinds) {
    if (rule_kind_name(k) == name) return k;
  }
  return std::nullopt;
}

std::string rule_names(Block block) {
  std::vector<std::string_view> names;
  for (RuleKind k : kAllKinds) {
    if (rule_block(k) == block) names.push_back(rule_kind_name(k));
  }
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out += i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

bool is_env_name(std::string_view name) {
  auto start = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  return !name.empty() && start(name.front()) && std::all_of(name.begin(), name.end(), [&](char c) {
    return start(c) || (c >= '0' && c <= '9');
  });
}

class Parser {
 public:
  Parser(std::string_view text, const ParseContext& ctx) : lexer_(text, ctx.file), ctx_(ctx) {}

  util::Result<Policy> run();

 private:
  util::Status advance();
  util::Status block();
  util::Status rule(Block block, const Token& block_token);
  util::Status value(RuleKind kind);
  util::Result<std::string> expand_path(const std::string& written) const;
  util::Error error(const Token& at, std::string_view message) const {
    return syntax_error(ctx_.file, at.line, at.column, message);
  }

  Lexer lexer_;
  const ParseContext& ctx_;
  Token token_;
  Policy policy_;
};

util::Status Parser::advance() {
  util::Result<Token> next = lexer_.next();
  if (!next) return next.error();
  token_ = std::move(next.value());
  return {};
}

util::Result<Policy> Parser::run() {
  if (util::Status s = advance(); !s) return s.error();
  while (token_.type != Token::Type::kEnd) {
    if (util::Status s = block(); !s) return s.error();
  }
  return std::move(policy_);
}

util::Status Parser::block() {
  if (token_.type != Token::Type::kIdent) {
    return error(token_,
                 fmt::format("expected a block (fs, net or env), found {}", describe(token_)));
  }
  std::optional<Block> block = find_block(token_.text);
  if (!block) {
    return error(token_,
                 fmt::format("unknown block \"{}\" (expected fs, net or env)", token_.text));
  }
  Token block_token = token_;
  if (util::Status s = advance(); !s) return s;
  if (token_.type != Token::Type::kLBrace) {
    return error(token_, fmt::format("expected \"{{\" after {}, found {}", block_token.text,
                                     describe(token_)));
  }
  if (util::Status s = advance(); !s) return s;
  while (token_.type != Token::Type::kRBrace) {
    if (util::Status s = rule(*block, block_token); !s) return s;
  }
  return advance();
}

util::Status Parser::rule(Block block, const Token& block_token) {
  // A block name where a rule should be, or the end of the file, means the
  // previous block was never closed; say so rather than "unknown rule".
  if (token_.type == Token::Type::kEnd ||
      (token_.type == Token::Type::kIdent && find_block(token_.text))) {
    return error(token_, fmt::format("missing \"}}\" to close the {} block opened at line {}",
                                     block_token.text, block_token.line));
  }
  if (token_.type != Token::Type::kIdent) {
    return error(token_, fmt::format("expected a rule or \"}}\", found {}", describe(token_)));
  }
  std::optional<RuleKind> kind = find_rule(token_.text);
  if (!kind) {
    return error(token_, fmt::format("unknown rule \"{}\" in {} block (expected {})", token_.text,
                                     block_name(block), rule_names(block)));
  }
  if (rule_block(*kind) != block) {
    return error(token_, fmt::format("{} goes in the {} block, not {}", token_.text,
                                     block_name(rule_block(*kind)), block_name(block)));
  }
  Token rule_token = token_;
  if (util::Status s = advance(); !s) return s;
  if (token_.type == Token::Type::kString || token_.type == Token::Type::kNumber) {
    return value(*kind);
  }
  if (token_.type != Token::Type::kLBracket) {
    return error(token_, fmt::format("expected a value or \"[\" after {}, found {}",
                                     rule_token.text, describe(token_)));
  }
  if (util::Status s = advance(); !s) return s;
  while (token_.type != Token::Type::kRBracket) {
    if (token_.type != Token::Type::kString && token_.type != Token::Type::kNumber) {
      return error(token_, fmt::format("expected a value or \"]\", found {}", describe(token_)));
    }
    if (util::Status s = value(*kind); !s) return s;
    if (token_.type == Token::Type::kComma) {
      if (util::Status s = advance(); !s) return s;
    } else if (token_.type != Token::Type::kRBracket) {
      return error(token_, fmt::format("expected \",\" or \"]\", found {}", describe(token_)));
    }
  }
  return advance();
}

// Consumes the value token at token_ and appends its rule.
util::Status Parser::value(RuleKind kind) {
  Rule rule;
  rule.kind = kind;
  rule.written = token_.text;
  rule.origin = Origin{ctx_.file, token_.line, token_.column};
  const bool wants_number = kind == RuleKind::kExpose;
  if (wants_number != (token_.type == Token::Type::kNumber)) {
    return error(token_,
                 fmt::format("{} takes {}, found {}", rule_kind_name(kind),
                             wants_number ? "a port number" : "a quoted string", describe(token_)));
  }
  if (is_fs_rule(kind)) {
    util::Result<std::string> path = expand_path(token_.text);
    if (!path) return error(token_, path.error().message);
    rule.value = std::move(path.value());
  } else if (kind == RuleKind::kAllowTcp || kind == RuleKind::kAllowUdp) {
    util::Result<NetDestination> dest = parse_destination(token_.text);
    if (!dest) return error(token_, dest.error().message);
    rule.value = format_destination(*dest);
    rule.destination = std::move(dest.value());
  } else if (kind == RuleKind::kExpose) {
    util::Result<uint16_t> port = parse_port(token_.text);
    if (!port) return error(token_, port.error().message);
    rule.port = *port;
    rule.value = std::to_string(*port);
  } else {
    if (!is_env_name(token_.text)) {
      return error(token_, fmt::format("bad environment variable name \"{}\" "
                                       "(must match [A-Za-z_][A-Za-z0-9_]*)",
                                       util::printable(token_.text)));
    }
    rule.value = token_.text;
  }
  policy_.rules.push_back(std::move(rule));
  return advance();
}

// "~" and "~/..." are the home directory, other relative paths are relative
// to ctx_.base_dir. Both anchors must be absolute, or an empty home would
// quietly turn "~/.ssh" into "/.ssh".
util::Result<std::string> Parser::expand_path(const std::string& written) const {
  if (written.empty()) return util::Error{"empty path"};
  if (written.find('\0') != std::string::npos) return util::Error{"path contains a NUL byte"};
  const bool tilde = written == "~" || written.starts_with("~/");
  if (!tilde && written.front() == '~') {
    return util::Error{
        fmt::format("\"~user\" paths are not supported: \"{}\" (write \"./{}\" for a "
                    "name that starts with ~)",
                    util::printable(written), util::printable(written))};
  }
  if (written.front() == '/') return util::clean_path(written);
  const std::string& anchor = tilde ? ctx_.home : ctx_.base_dir;
  if (anchor.empty() || anchor.front() != '/') {
    return util::Error{
        fmt::format("path is not absolute after expansion: \"{}\" ({} \"{}\" is not "
                    "absolute)",
                    util::printable(written), tilde ? "home directory" : "base directory",
                    util::printable(anchor))};
  }
  return tilde ? util::clean_path(anchor + written.substr(1)) : util::join_path(anchor, written);
}

}  // namespace

util::Result<Policy> parse_policy(std::string_view text, const ParseContext& ctx) {
  return Parser(text, ctx).run();
}

}  // namespace cordon::schema
