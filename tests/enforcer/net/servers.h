// What the network tests run on the host's loopback, a TCP echo server and
// a test DNS server standing in for the upstream resolver, and the client
// they run in the sandbox.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "enforcer/net/dns.h"

namespace cordon::nettest {

namespace ip = boost::asio::ip;

// A socket on 127.0.0.1 at a port the kernel picks.
inline int loopback_socket(int type, uint16_t& port) {
  int s = ::socket(AF_INET, type | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (s < 0 || ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      (type == SOCK_STREAM && ::listen(s, 64) != 0) ||
      ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    throw std::runtime_error("cannot open a loopback socket");
  }
  port = ntohs(a.sin_port);
  return s;
}

// Serves until destroyed, polling so it can stop.
class Server {
 public:
  virtual ~Server() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    ::close(fd_);
  }
  uint16_t port() const { return port_; }

 protected:
  void run(int type) {
    fd_ = loopback_socket(type, port_);
    thread_ = std::thread([this] {
      while (!stop_) {
        pollfd p{fd_, POLLIN, 0};
        if (::poll(&p, 1, 50) > 0) serve_one();
      }
    });
  }
  virtual void serve_one() = 0;
  int fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// TCP: echoes what arrives on each connection until EOF.
class EchoServer : public Server {
 public:
  EchoServer() { run(SOCK_STREAM); }
  ~EchoServer() override {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    for (auto& t : conns_) t.join();
  }
  std::atomic<int> accepted{0};

 private:
  void serve_one() override {
    int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) return;
    ++accepted;
    conns_.emplace_back([c] {
      char buf[65536];
      ssize_t n;
      while ((n = ::read(c, buf, sizeof buf)) > 0) {
        if (::write(c, buf, static_cast<size_t>(n)) != n) break;
      }
      ::close(c);
    });
  }
  std::vector<std::thread> conns_;
};

// UDP: answers each datagram with reply() (nothing when it is empty).
class DatagramServer : public Server {
 protected:
  virtual std::string reply(std::string_view msg) = 0;

 private:
  void serve_one() override {
    char buf[1500];
    sockaddr_storage from{};
    socklen_t len = sizeof from;
    ssize_t n = ::recvfrom(fd_, buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&from), &len);
    if (n <= 0) return;
    std::string out = reply(std::string_view(buf, static_cast<size_t>(n)));
    if (!out.empty()) {
      ::sendto(fd_, out.data(), out.size(), 0, reinterpret_cast<sockaddr*>(&from), len);
    }
  }
};

// UDP: sends each datagram back with "echo:" in front.
class UdpEchoServer : public DatagramServer {
 public:
  UdpEchoServer() { run(SOCK_DGRAM); }
  ~UdpEchoServer() override {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  std::atomic<int> received{0};

 private:
  std::string reply(std::string_view msg) override {
    ++received;
    return "echo:" + std::string(msg);
  }
};

// UDP DNS: A records from a table, NXDOMAIN for the rest.
class DnsServer : public DatagramServer {
 public:
  explicit DnsServer(std::map<std::string, std::string> a) : table_(std::move(a)) {
    run(SOCK_DGRAM);
  }
  ~DnsServer() override {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  std::atomic<int> queries{0};

 private:
  std::string reply(std::string_view msg) override {
    ++queries;
    auto q = enforcer::net::dns::parse_query(msg);
    if (!q) return "";
    auto it = table_.find(q->name);
    if (it == table_.end()) {
      return enforcer::net::dns::build_response(msg, *q, enforcer::net::dns::kNxDomain, {}, 0);
    }
    std::vector<ip::address> out;
    if (q->qtype == enforcer::net::dns::kTypeA) out.push_back(ip::make_address(it->second));
    return enforcer::net::dns::build_response(msg, *q, enforcer::net::dns::kNoError, out, 5);
  }
  std::map<std::string, std::string> table_;
};

// Connects to HOST PORT, sends "ping", prints what came back:
// "reply:ping", "eof", "noname" (exit 3) or "error:ERRNO" (exit 4).
inline constexpr const char* kClient = R"py(
import socket, sys
host, port = sys.argv[1], int(sys.argv[2])
try:
    s = socket.create_connection((host, port), timeout=10)
    s.sendall(b"ping")
    d = s.recv(16)
    print("reply:" + d.decode() if d else "eof")
except socket.gaierror:
    print("noname"); sys.exit(3)
except OSError as e:
    print("error:%d" % (e.errno or 0)); sys.exit(4)
)py";

// Sends "ping" to HOST PORT over UDP (IPv4) twice from one socket, prints
// each reply, or "timeout" (exit 5).
inline constexpr const char* kUdpClient = R"py(
import socket, sys
host, port = sys.argv[1], int(sys.argv[2])
addr = socket.getaddrinfo(host, port, socket.AF_INET, socket.SOCK_DGRAM)[0][4]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(3)
for i in range(2):
    s.sendto(b"ping%d" % i, addr)
    try:
        d, src = s.recvfrom(64)
        print(d.decode(), src == addr)
    except socket.timeout:
        print("timeout"); sys.exit(5)
)py";

}  // namespace cordon::nettest
