#include "enforcer/net/dns.h"

#include <algorithm>

namespace cordon::enforcer::net::dns {

namespace asio_ip = boost::asio::ip;

namespace {

uint16_t u16(std::string_view m, size_t at) {
  return static_cast<uint16_t>((static_cast<uint8_t>(m[at]) << 8) |
                               static_cast<uint8_t>(m[at + 1]));
}

void put16(std::string& out, uint16_t v) {
  out += static_cast<char>(v >> 8);
  out += static_cast<char>(v & 0xff);
}

void put32(std::string& out, uint32_t v) {
  put16(out, static_cast<uint16_t>(v >> 16));
  put16(out, static_cast<uint16_t>(v & 0xffff));
}

// Reads an uncompressed name at `at` (questions are never compressed).
std::optional<std::string> read_plain_name(std::string_view m, size_t& at) {
  std::string name;
  for (int labels = 0; labels < 128; ++labels) {
    if (at >= m.size()) return std::nullopt;
    auto len = static_cast<uint8_t>(m[at++]);
    if (len == 0) return name;
    if (len > 63 || at + len > m.size()) return std::nullopt;
    if (!name.empty()) name += '.';
    for (size_t i = 0; i < len; ++i) {
      char c = m[at + i];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      name += c;
    }
    at += len;
    if (name.size() > 253) return std::nullopt;
  }
  return std::nullopt;
}

// Skips a possibly compressed name.
bool skip_name(std::string_view m, size_t& at) {
  for (int labels = 0; labels < 128; ++labels) {
    if (at >= m.size()) return false;
    auto len = static_cast<uint8_t>(m[at]);
    if ((len & 0xc0) == 0xc0) {
      at += 2;
      return at <= m.size();
    }
    ++at;
    if (len == 0) return true;
    at += len;
  }
  return false;
}

void put_name(std::string& out, const std::string& name) {
  size_t start = 0;
  while (start < name.size()) {
    size_t dot = name.find('.', start);
    if (dot == std::string::npos) dot = name.size();
    out += static_cast<char>(dot - start);
    out.append(name, start, dot - start);
    start = dot + 1;
  }
  out += '\0';
}

}  // namespace

std::optional<Question> parse_query(std::string_view m) {
  if (m.size() < 12) return std::nullopt;
  uint16_t flags = u16(m, 2);
  if (flags & 0x8000) return std::nullopt;              // a response
  if (((flags >> 11) & 0xf) != 0) return std::nullopt;  // not QUERY
  if (u16(m, 4) == 0) return std::nullopt;
  Question q;
  q.id = u16(m, 0);
  size_t at = 12;
  auto name = read_plain_name(m, at);
  if (!name || at + 4 > m.size()) return std::nullopt;
  q.name = *name;
  q.qtype = u16(m, at);
  q.qclass = u16(m, at + 2);
  q.end = at + 4;
  return q;
}

std::string build_response(std::string_view query, const Question& q, int rcode,
                           const std::vector<asio_ip::address>& answers, uint32_t ttl) {
  std::string out;
  put16(out, q.id);
  uint16_t rd = u16(query, 2) & 0x0100;
  put16(out,
        static_cast<uint16_t>(0x8000 | 0x0400 /* AA */ | rd | 0x0080 /* RA */ | (rcode & 0xf)));
  put16(out, 1);
  put16(out, rcode == kNoError ? static_cast<uint16_t>(answers.size()) : 0);
  put16(out, 0);
  put16(out, 0);
  out.append(query.substr(12, q.end - 12));
  if (rcode != kNoError) return out;
  for (const auto& a : answers) {
    put16(out, 0xc00c);  // the question's name
    if (a.is_v4()) {
      put16(out, kTypeA);
      put16(out, 1);
      put32(out, ttl);
      put16(out, 4);
      auto b = a.to_v4().to_bytes();
      out.append(reinterpret_cast<const char*>(b.data()), b.size());
    } else {
      put16(out, kTypeAAAA);
      put16(out, 1);
      put32(out, ttl);
      put16(out, 16);
      auto b = a.to_v6().to_bytes();
      out.append(reinterpret_cast<const char*>(b.data()), b.size());
    }
  }
  return out;
}

std::string build_query(uint16_t id, const std::string& name, uint16_t qtype) {
  std::string out;
  put16(out, id);
  put16(out, 0x0100);  // RD
  put16(out, 1);
  put16(out, 0);
  put16(out, 0);
  put16(out, 0);
  put_name(out, name);
  put16(out, qtype);
  put16(out, 1);
  return out;
}

std::optional<Reply> parse_reply(std::string_view m) {
  if (m.size() < 12) return std::nullopt;
  uint16_t flags = u16(m, 2);
  if (!(flags & 0x8000)) return std::nullopt;
  Reply r;
  r.id = u16(m, 0);
  r.rcode = flags & 0xf;
  size_t at = 12;
  for (uint16_t i = 0, n = u16(m, 4); i < n; ++i) {
    if (!skip_name(m, at) || at + 4 > m.size()) return std::nullopt;
    at += 4;
  }
  for (uint16_t i = 0, n = u16(m, 6); i < n; ++i) {
    if (!skip_name(m, at) || at + 10 > m.size()) return std::nullopt;
    uint16_t type = u16(m, at), cls = u16(m, at + 2), len = u16(m, at + 8);
    at += 10;
    if (at + len > m.size()) return std::nullopt;
    if (cls == 1 && type == kTypeA && len == 4) {
      asio_ip::address_v4::bytes_type b;
      std::copy_n(m.data() + at, 4, reinterpret_cast<char*>(b.data()));
      r.addresses.emplace_back(asio_ip::address_v4(b));
    } else if (cls == 1 && type == kTypeAAAA && len == 16) {
      asio_ip::address_v6::bytes_type b;
      std::copy_n(m.data() + at, 16, reinterpret_cast<char*>(b.data()));
      r.addresses.emplace_back(asio_ip::address_v6(b));
    }
    at += len;
  }
  return r;
}

}  // namespace cordon::enforcer::net::dns
