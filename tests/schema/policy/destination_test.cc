#include "schema/policy/destination.h"

#include <gtest/gtest.h>

namespace cordon::schema {
namespace {

using HostKind = NetDestination::HostKind;

NetDestination ok(std::string_view text) {
  util::Result<NetDestination> d = parse_destination(text);
  EXPECT_TRUE(d.ok()) << text << ": " << (d.ok() ? "" : d.error().message);
  return d.ok() ? d.value() : NetDestination{};
}

std::string err(std::string_view text) {
  util::Result<NetDestination> d = parse_destination(text);
  EXPECT_FALSE(d.ok()) << text;
  return d.ok() ? "" : d.error().message;
}

std::string canonical(std::string_view text) {
  return format_destination(ok(text));
}

TEST(Destination, Names) {
  NetDestination d = ok("Example.ORG:443");
  EXPECT_EQ(d.host_kind, HostKind::kName);
  EXPECT_EQ(d.host, "example.org");
  EXPECT_EQ(d.port_first, 443);
  EXPECT_EQ(d.port_last, 443);
  EXPECT_EQ(canonical("localhost:5432"), "localhost:5432");
  EXPECT_EQ(canonical("db_1.svc-x.internal:1"), "db_1.svc-x.internal:1");
  EXPECT_EQ(canonical("3com.com:80"), "3com.com:80");
}

TEST(Destination, HostInternal) {
  NetDestination d = ok("HOST.internal:5432");
  EXPECT_EQ(d.host_kind, HostKind::kInternal);
  EXPECT_EQ(format_destination(d), "host.internal:5432");
  EXPECT_EQ(ok("db.host.internal:1").host_kind, HostKind::kName);
}

TEST(Destination, Ipv4) {
  NetDestination d = ok("192.0.2.1:53");
  EXPECT_EQ(d.host_kind, HostKind::kIpv4);
  EXPECT_EQ(d.host, "192.0.2.1");
  EXPECT_EQ(err("10.0.0:80"), "bad destination \"10.0.0:80\": bad IPv4 address \"10.0.0\"");
  EXPECT_EQ(err("256.1.1.1:80"),
            "bad destination \"256.1.1.1:80\": bad IPv4 address \"256.1.1.1\"");
  // Leading zeros read as octal by some tools; refuse rather than guess.
  EXPECT_EQ(err("010.0.0.1:80"),
            "bad destination \"010.0.0.1:80\": bad IPv4 address \"010.0.0.1\"");
}

TEST(Destination, Ipv6) {
  NetDestination d = ok("[2001:DB8:0:0::1]:443");
  EXPECT_EQ(d.host_kind, HostKind::kIpv6);
  EXPECT_EQ(d.host, "2001:db8::1");
  EXPECT_EQ(format_destination(d), "[2001:db8::1]:443");
  EXPECT_EQ(canonical("[::1]:*"), "[::1]:*");
  EXPECT_EQ(canonical("[::ffff:192.0.2.1]:1"), "[::ffff:192.0.2.1]:1");
  EXPECT_EQ(err("::1:80"),
            "bad destination \"::1:80\": an IPv6 address needs brackets: [ADDRESS]:PORT");
  EXPECT_EQ(err("[::1:80"), "bad destination \"[::1:80\": missing \"]\" after IPv6 address");
  EXPECT_EQ(err("[::1]80"), "bad destination \"[::1]80\": expected HOST:PORT");
  EXPECT_EQ(err("[::1]"), "bad destination \"[::1]\": expected HOST:PORT");
  EXPECT_EQ(err("[fe80::1%eth0]:1"),
            "bad destination \"[fe80::1%eth0]:1\": bad IPv6 address \"fe80::1%eth0\"");
  EXPECT_EQ(err("[example.org]:1"),
            "bad destination \"[example.org]:1\": bad IPv6 address \"example.org\"");
}

TEST(Destination, PortForms) {
  NetDestination range = ok("a.org:8000-8100");
  EXPECT_EQ(range.port_first, 8000);
  EXPECT_EQ(range.port_last, 8100);
  EXPECT_EQ(format_destination(range), "a.org:8000-8100");
  NetDestination any = ok("a.org:*");
  EXPECT_EQ(any.port_first, 1);
  EXPECT_EQ(any.port_last, 65535);
  EXPECT_EQ(canonical("a.org:1-65535"), "a.org:*");
  EXPECT_EQ(canonical("a.org:80-80"), "a.org:80");
  EXPECT_EQ(canonical("a.org:0080"), "a.org:80");
}

TEST(Destination, BadPorts) {
  EXPECT_EQ(err("a.org:"),
            "bad destination \"a.org:\": bad port \"\" (expected a number, FIRST-LAST or *)");
  EXPECT_EQ(
      err("a.org:http"),
      "bad destination \"a.org:http\": bad port \"http\" (expected a number, FIRST-LAST or *)");
  EXPECT_EQ(err("a.org:1-"),
            "bad destination \"a.org:1-\": bad port \"1-\" (expected a number, FIRST-LAST or *)");
  EXPECT_EQ(
      err("a.org:1-2-3"),
      "bad destination \"a.org:1-2-3\": bad port \"1-2-3\" (expected a number, FIRST-LAST or *)");
  EXPECT_EQ(err("a.org:**"),
            "bad destination \"a.org:**\": bad port \"**\" (expected a number, FIRST-LAST or *)");
  EXPECT_EQ(err("a.org:8100-8000"),
            "bad destination \"a.org:8100-8000\": port range 8100-8000 is backwards");
  EXPECT_EQ(err("a.org:65536"), "port out of range: 65536 (must be 1-65535)");
  EXPECT_EQ(err("a.org:1-65536"), "port out of range: 65536 (must be 1-65535)");
}

TEST(Destination, BadHosts) {
  EXPECT_EQ(err(""), "bad destination \"\": expected HOST:PORT");
  EXPECT_EQ(err(":80"), "bad destination \":80\": bad host name \"\"");
  EXPECT_EQ(err("a..b:80"), "bad destination \"a..b:80\": bad host name \"a..b\"");
  EXPECT_EQ(err("-a.org:80"), "bad destination \"-a.org:80\": bad host name \"-a.org\"");
  EXPECT_EQ(err("a-.org:80"), "bad destination \"a-.org:80\": bad host name \"a-.org\"");
  EXPECT_EQ(err("*.org:80"), "bad destination \"*.org:80\": bad host name \"*.org\"");
  EXPECT_EQ(err("caf\xc3\xa9.fr:80"),
            "bad destination \"caf\xc3\xa9.fr:80\": bad host name \"caf\xc3\xa9.fr\"");
  EXPECT_EQ(err(std::string_view("a\0b:1", 5)),
            "bad destination \"a\\x00b:1\": host contains a NUL byte");
  EXPECT_EQ(err(std::string(64, 'a') + ".org:1"), "bad destination \"" + std::string(64, 'a') +
                                                      ".org:1\": bad host name \"" +
                                                      std::string(64, 'a') + ".org\"");
  EXPECT_EQ(canonical(std::string(63, 'a') + ".org:1"), std::string(63, 'a') + ".org:1");
}

TEST(Port, Parse) {
  EXPECT_EQ(*parse_port("1"), 1);
  EXPECT_EQ(*parse_port("65535"), 65535);
  EXPECT_EQ(*parse_port("000001"), 1);
  EXPECT_EQ(parse_port("0").error().message, "port out of range: 0 (must be 1-65535)");
  EXPECT_EQ(parse_port("x").error().message, "bad port \"x\"");
  EXPECT_EQ(parse_port("").error().message, "bad port \"\"");
}

}  // namespace
}  // namespace cordon::schema
