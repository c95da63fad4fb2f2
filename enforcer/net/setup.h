// The in-sandbox half of network confinement: `cordon __netsetup`, run by
// bwrap as the sandbox's first program while it still holds CAP_NET_ADMIN
// (and CAP_NET_RAW, CAP_SETPCAP) inside its own user namespace, as uid 0
// there. (bwrap 0.8 runs the command in a second, nested user namespace
// whenever --dev or --disable-userns is used and the sandbox uid is not 0;
// capabilities in that one do not cover the network namespace, so the helper
// asks for uid 0 and makes the nested namespace itself, after the setup.)
//
// It gives the namespace a default route that delivers nothing (via lo),
// redirects TCP to anything but loopback, and UDP/53 likewise, to listeners it
// opens on the namespace's loopback, hands those listening sockets to the
// host proxy over the one inherited Unix socket, drops every capability
// irreversibly and execs the command. No process of cordon's stays behind in
// the sandbox: the host proxy accepts on the namespace's sockets itself.
#pragma once

#include <string>

namespace cordon::enforcer::net {

// Where the cordon binary is mounted inside a sandbox with network rules
// (the sandbox's own /run, never a host directory).
inline constexpr const char* kHelperPath = "/run/cordon/netsetup";
// The resolver the sandbox's /etc/resolv.conf names; any UDP (and TCP) to
// port 53 reaches the proxy's resolver, this address included.
inline constexpr const char* kResolverAddress = "198.18.0.1";

// Messages on the control socket, sandbox to host, each with one descriptor
// except the last: the listeners, then "ready" (or "v6off REASON" before it).
inline constexpr const char* kMsgTcp4 = "tcp4";
inline constexpr const char* kMsgTcp6 = "tcp6";
inline constexpr const char* kMsgDns4 = "dns4";
inline constexpr const char* kMsgDns6 = "dns6";
inline constexpr const char* kMsgUdp4 = "udp4";        // the transparent UDP socket
inline constexpr const char* kMsgFactory = "factory";  // socket_factory.h
inline constexpr const char* kMsgReady = "ready";

// FEATURES of the helper's command line: "-", or these, comma-separated.
inline constexpr const char* kFeatureUdp = "udp";        // allow_udp: TPROXY and the socket factory
inline constexpr const char* kFeatureExpose = "expose";  // expose: the socket factory
// Learning: UDP through the proxy where TPROXY works, with a warning where not.
inline constexpr const char* kFeatureRecordUdp = "record-udp";

// `cordon __netsetup FD FILTER_FD UID GID IP IPTABLES IP6TABLES FEATURES --
// CMD...` (IP6TABLES "-" when the host has none; FILTER_FD "-" while
// learning, where CMD is the tracer's shim), run as uid 0 of bwrap's user
// namespace. Never returns: sets up the network, moves into a nested user
// namespace as UID/GID, drops every capability, installs the seccomp filter
// read from FILTER_FD and execs CMD; or exits 125 with the reason on stderr.
[[noreturn]] void netsetup_main(int argc, char** argv);

}  // namespace cordon::enforcer::net
