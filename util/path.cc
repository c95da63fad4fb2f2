#include "util/path.h"

#include <vector>

namespace cordon::util {

std::string clean_path(std::string_view path) {
  if (path.empty()) return ".";
  const bool absolute = path.front() == '/';
  std::vector<std::string_view> parts;
  size_t i = 0;
  while (i < path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    std::string_view part = path.substr(i, j - i);
    i = j + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty() && parts.back() != "..") {
        parts.pop_back();
      } else if (!absolute) {
        parts.push_back(part);
      }
      continue;
    }
    parts.push_back(part);
  }
  std::string out;
  if (absolute) out.push_back('/');
  for (size_t k = 0; k < parts.size(); ++k) {
    if (k) out.push_back('/');
    out.append(parts[k].data(), parts[k].size());
  }
  if (out.empty()) out.push_back('.');
  return out;
}

std::string join_path(std::string_view dir, std::string_view rel) {
  if (!rel.empty() && rel.front() == '/') return clean_path(rel);
  std::string joined(dir);
  joined += '/';
  joined += rel;
  return clean_path(joined);
}

bool path_within(std::string_view path, std::string_view prefix) {
  if (prefix == "/") return !path.empty() && path.front() == '/';
  if (path.size() < prefix.size() || path.substr(0, prefix.size()) != prefix) return false;
  return path.size() == prefix.size() || path[prefix.size()] == '/';
}

std::string parent_path(std::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos || slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

namespace {

// Length of the valid UTF-8 sequence starting at s[i], 0 if invalid.
size_t utf8_length(std::string_view s, size_t i) {
  unsigned char c = s[i];
  size_t n;
  unsigned min;
  unsigned cp;
  if (c < 0x80) return 1;
  if ((c & 0xe0) == 0xc0) {
    n = 2, min = 0x80, cp = c & 0x1f;
  } else if ((c & 0xf0) == 0xe0) {
    n = 3, min = 0x800, cp = c & 0x0f;
  } else if ((c & 0xf8) == 0xf0) {
    n = 4, min = 0x10000, cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    unsigned char cc = s[i + k];
    if ((cc & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n;
}

}  // namespace

std::string printable(std::string_view bytes) {
  static const char hex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < bytes.size();) {
    unsigned char c = bytes[i];
    size_t n = utf8_length(bytes, i);
    if (n > 1) {
      out.append(bytes.substr(i, n));
      i += n;
      continue;
    }
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\\') {
      out += "\\\\";
    } else if (n == 1 && c >= 0x20 && c != 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
    ++i;
  }
  return out;
}

bool is_clean_utf8(std::string_view bytes) {
  for (size_t i = 0; i < bytes.size();) {
    size_t n = utf8_length(bytes, i);
    if (n == 0) return false;
    if (n == 1 && (static_cast<unsigned char>(bytes[i]) < 0x20 || bytes[i] == 0x7f)) return false;
    i += n;
  }
  return true;
}

}  // namespace cordon::util
