// Just enough of the DNS wire format (RFC 1035) for the sandbox's resolver:
// read one question, answer it with given addresses or an error code, and
// ask an upstream server for A/AAAA records and read its answer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/ip/address.hpp>

namespace cordon::enforcer::net::dns {

inline constexpr uint16_t kTypeA = 1;
inline constexpr uint16_t kTypeAAAA = 28;
inline constexpr int kNoError = 0;
inline constexpr int kFormErr = 1;
inline constexpr int kServFail = 2;
inline constexpr int kNxDomain = 3;
inline constexpr int kNotImp = 4;
inline constexpr int kRefused = 5;

struct Question {
  uint16_t id = 0;
  std::string name;  // lower-case, dotted, no trailing dot ("" for the root)
  uint16_t qtype = 0;
  uint16_t qclass = 0;
  size_t end = 0;  // offset just past the question in the message
};

// The first question of a standard query; nullopt when the message is not
// one (a response, an opcode other than QUERY, no question, malformed).
std::optional<Question> parse_query(std::string_view msg);

// A response to `query` (whose question `q` came from parse_query) carrying
// `answers` (each of q.qtype's family) with `ttl`.
std::string build_response(std::string_view query, const Question& q, int rcode,
                           const std::vector<boost::asio::ip::address>& answers, uint32_t ttl);

// A recursive query for one name and type.
std::string build_query(uint16_t id, const std::string& name, uint16_t qtype);

struct Reply {
  uint16_t id = 0;
  int rcode = 0;
  std::vector<boost::asio::ip::address> addresses;  // every A/AAAA in the answer section
};
std::optional<Reply> parse_reply(std::string_view msg);

}  // namespace cordon::enforcer::net::dns
