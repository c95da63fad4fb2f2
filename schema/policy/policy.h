// The policy language: parse, print, load and the built-in base layer.
//
// This is the header other components include; it pulls in the model
// (model.h) and layering (effective.h). The language itself is described in
// docs/policy-language.md.
//
// Every error is a util::Error. Syntax and value errors read exactly
// "FILE:LINE:COLUMN: message" (FILE in util::printable form, line and column
// 1-based, column counted in bytes); file-access errors read
// "PATH: cannot read: <strerror>" and carry the errno.
#pragma once

#include <string>
#include <string_view>

#include "schema/policy/effective.h"
#include "schema/policy/model.h"
#include "util/result.h"

namespace cordon::schema {

struct ParseContext {
  std::string file;      // name used in origins and error messages
  std::string home;      // what "~" expands to; never read from $HOME here
  std::string base_dir;  // what relative paths are relative to
};

util::Result<Policy> parse_policy(std::string_view text, const ParseContext& ctx);

// Canonical text: blocks in rule order (a new block starts whenever the block
// changes), one rule per line, consecutive rules of one kind folded into a
// list, paths absolute, every byte that is not printable UTF-8 escaped.
// parse_policy(print_policy(p)) is equivalent to p, and printing it again
// gives the same bytes.
std::string print_policy(const Policy& policy);

// A string literal of the language holding exactly `bytes`, escaped as
// print_policy escapes values; also safe inside a comment (no line break).
std::string quote_policy_string(std::string_view bytes);

// The built-in base layer, as text (with comments saying why each entry is
// there) and parsed. "." in the text is `cwd` and "~" is `home`; origins name
// the file "<base>" with line numbers of base_policy_text(). Fails only if
// `cwd` or `home` is not an absolute path.
std::string_view base_policy_text();
util::Result<Policy> base_policy(const std::string& cwd, const std::string& home);

// Reads and parses a policy file. Relative paths in it are relative to the
// directory of `path` as named (made absolute against the current directory;
// symlinks are not resolved). An empty file is an empty policy. A file that
// cannot be opened gives "PATH: cannot read: <strerror>" with errno_value set,
// so callers can treat ENOENT as "no such layer".
util::Result<Policy> load_policy_file(const std::string& path, const std::string& home);

// As load_policy_file, but refuses a `path` that is a symlink (ELOOP): the
// workspace is often someone else's checkout, and its policy must be the file
// that sits there, not one it points at.
util::Result<Policy> load_workspace_policy(const std::string& path, const std::string& home);

}  // namespace cordon::schema
