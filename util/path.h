// Paths are bytes. Nothing here assumes UTF-8 or touches the filesystem.
#pragma once

#include <string>
#include <string_view>

namespace cordon::util {

// Lexical clean-up of an absolute or relative path: collapses "//" and ".",
// folds "dir/.." pairs, drops a trailing "/". ".." at the root stays at the
// root. Symlinks are not consulted, so "a/link/.." becomes "a" even where the
// kernel would go elsewhere; callers record the name as given beside it.
std::string clean_path(std::string_view path);

// `rel` resolved against the absolute directory `dir`, then cleaned. An
// absolute `rel` ignores `dir`.
std::string join_path(std::string_view dir, std::string_view rel);

// True if `path` is `prefix` or lies below it (both clean and absolute).
bool path_within(std::string_view path, std::string_view prefix);

// The directory part of a clean absolute path ("/" for "/x" and for "/").
std::string parent_path(std::string_view path);

// Printable form for one-line messages: control bytes, backslash and bytes
// that are not valid UTF-8 become \n, \t, \\ or \xHH.
std::string printable(std::string_view bytes);

// True if `bytes` is valid UTF-8 with no control characters.
bool is_clean_utf8(std::string_view bytes);

}  // namespace cordon::util
