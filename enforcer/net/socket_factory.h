// The socket factory: the one process of cordon's that stays in the
// sandbox, and only when the host proxy needs sockets of the sandbox's
// network namespace after the setup (a UDP flow's reply socket, a
// connection to an exposed port). A socket belongs to the namespace of the
// process that creates it, and an unprivileged host process cannot setns
// into one, so the factory creates them and the proxy does the rest: as
// the owner of the sandbox's user namespace it may make them transparent
// and bind them there.
//
// The factory calls socket() and nothing else. It holds no capability (it
// drops them as the command does), so whatever it hands out the command
// could have made itself; the proxy checks each one is a fresh socket of
// the kind asked for. If the command kills it, nothing new gets made and
// what needed it fails: closed, not open.
#pragma once

#include <sys/types.h>

#include "util/fd.h"

namespace cordon::enforcer::net {

// Requests, host to factory, answered with the same text and the socket, or
// with "error REASON".
inline constexpr const char* kFactoryUdp4 = "udp4";
inline constexpr const char* kFactoryTcp4 = "tcp4";
inline constexpr const char* kFactoryTcp6 = "tcp6";

// In the setup helper: starts the factory, detached so that it is no child
// of the command's (bwrap's init reaps it; it ends when the proxy closes
// its end or the namespace goes). Returns the proxy's end of its channel;
// calls setup_failed on error.
util::Fd start_socket_factory(uid_t uid, gid_t gid);

}  // namespace cordon::enforcer::net
