// The DNS wire helpers and the address classes, without a sandbox.
#include <gtest/gtest.h>

#include "enforcer/net/dns.h"
#include "enforcer/net/rules.h"
#include "schema/policy/destination.h"

namespace cordon::enforcer::net {
namespace {

namespace ip = boost::asio::ip;

TEST(NetDns, QueryRoundTrip) {
  std::string q = dns::build_query(0x1234, "Example.COM", dns::kTypeA);
  auto parsed = dns::parse_query(q);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->id, 0x1234);
  EXPECT_EQ(parsed->name, "example.com");
  EXPECT_EQ(parsed->qtype, dns::kTypeA);
  std::string r =
      dns::build_response(q, *parsed, dns::kNoError, {ip::make_address("198.18.0.2")}, 60);
  auto reply = dns::parse_reply(r);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->id, 0x1234);
  ASSERT_EQ(reply->addresses.size(), 1u);
  EXPECT_EQ(reply->addresses[0].to_string(), "198.18.0.2");
  auto nx = dns::parse_reply(dns::build_response(q, *parsed, dns::kNxDomain, {}, 0));
  ASSERT_TRUE(nx);
  EXPECT_EQ(nx->rcode, dns::kNxDomain);
  EXPECT_TRUE(nx->addresses.empty());
}

TEST(NetDns, MalformedIsIgnored) {
  EXPECT_FALSE(dns::parse_query(""));
  EXPECT_FALSE(dns::parse_query(std::string(12, '\0')));
  std::string q = dns::build_query(1, "a.b", dns::kTypeA);
  EXPECT_FALSE(dns::parse_query(q.substr(0, q.size() - 3)));
  EXPECT_FALSE(dns::parse_reply(q));  // a query is not a reply
}

TEST(NetRules, SpecialRanges) {
  for (const char* a : {"127.0.0.1", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
                        "169.254.1.1", "100.64.0.1", "0.0.0.0", "::1", "fe80::1", "fc00::1",
                        "fd12::1", "::ffff:10.0.0.1", "::ffff:127.0.0.1"}) {
    EXPECT_TRUE(is_special(ip::make_address(a))) << a;
  }
  for (const char* a :
       {"93.184.216.34", "172.32.0.1", "8.8.8.8", "2606:4700::1111", "::ffff:1.1.1.1"}) {
    EXPECT_FALSE(is_special(ip::make_address(a))) << a;
  }
}

TEST(NetRules, Matching) {
  std::vector<schema::NetDestination> d;
  for (const char* t :
       {"example.com:443", "host.internal:5432", "10.0.0.5:8000-8080", "[2001:db8::1]:*"}) {
    d.push_back(*schema::parse_destination(t));
  }
  Rules r(d);
  EXPECT_TRUE(r.allows_name("example.com", 443));
  EXPECT_FALSE(r.allows_name("example.com", 80));
  EXPECT_FALSE(r.allows_name("www.example.com", 443));
  EXPECT_TRUE(r.allows_name("host.internal", 5432));
  EXPECT_TRUE(r.name_known("host.internal"));
  EXPECT_FALSE(r.name_known("evil.test"));
  EXPECT_TRUE(r.allows_address(ip::make_address("10.0.0.5"), 8080));
  EXPECT_TRUE(r.allows_address(ip::make_address("::ffff:10.0.0.5"), 8000));
  EXPECT_FALSE(r.allows_address(ip::make_address("10.0.0.5"), 8081));
  EXPECT_TRUE(r.allows_address(ip::make_address("2001:db8::1"), 1));
  EXPECT_TRUE(r.names_address(ip::make_address("10.0.0.5")));
  EXPECT_FALSE(r.names_address(ip::make_address("10.0.0.6")));
}

}  // namespace
}  // namespace cordon::enforcer::net
