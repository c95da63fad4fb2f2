// The host half of network confinement: cordon's proxy for one sandbox.
//
// It receives the sandbox's listening sockets (see setup.h) over the control
// socket and serves them on one Boost.Asio event loop, on one thread:
//   - TCP: each accepted connection's original destination (SO_ORIGINAL_DST,
//     read here, on the trusted side) is checked against allow_tcp; allowed
//     ones are dialled from the host and bytes are relayed both ways;
//   - DNS (UDP, and TCP to the resolver address): names some rule allows get
//     a fake address, one per name for A and AAAA alike, which a later
//     connection is attributed by; every other name is NXDOMAIN.
// Every lookup and connection is counted (net_log.h) for the end-of-run
// report and, with --audit, the trace.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "enforcer/net/rules.h"
#include "schema/trace_db.h"
#include "util/fd.h"
#include "util/result.h"

namespace cordon::enforcer::net {

struct SessionOptions {
  Rules rules;  // allow_tcp
  // "ADDR", "ADDR:PORT" or "[V6ADDR]:PORT": the resolver the proxy asks for
  // the real addresses of allowed names; "" for the host's first
  // /etc/resolv.conf nameserver.
  std::string upstream;
  // Learning (docs/network.md): every name resolves, through the upstream,
  // and every destination is dialled; `rules` are not consulted.
  bool record_all = false;
  Rules udp_rules;  // allow_udp (udp_relay.h)
  // expose: listening sockets on the host's 127.0.0.1, each relayed to the
  // same port on the sandbox's loopback.
  std::vector<util::Fd> exposed;
};

class Session {
 public:
  // `control` is the host's end of the control socket.
  static util::Result<std::shared_ptr<Session>> create(SessionOptions options, util::Fd control);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Starts the proxy thread (once).
  void start();
  // Closes every listener and connection and joins the thread; afterwards
  // nothing of the sandbox's reaches out any more. Idempotent, thread-safe.
  void stop();
  // After stop(): one line per refused destination or name, with counts.
  std::vector<std::string> report() const;
  // After stop(): every lookup and connection the proxy handled, allowed
  // and refused, counted, each connection with the name it was attributed
  // to; in the order first seen.
  std::vector<schema::NetRecord> records() const;
  // The upstream resolver in use, "" when there is none.
  std::string upstream() const;

  struct Impl;

 private:
  explicit Session(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Parses "ADDR", "ADDR:PORT", "[V6]:PORT"; the host's resolver for "".
util::Result<std::pair<std::string, uint16_t>> parse_upstream(const std::string& text);

}  // namespace cordon::enforcer::net
