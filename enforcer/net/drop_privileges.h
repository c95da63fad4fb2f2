// What the sandbox's setup helper (and the socket factory it may leave
// behind) do before running anything of the sandbox's: give up, with the
// reason, or give up every privilege for good.
#pragma once

#include <sys/types.h>

#include <string>

namespace cordon::enforcer::net {

// "cordon: network setup failed: WHY" on stderr, then exit 125.
[[noreturn]] void setup_failed(const std::string& why);

// Moves into a user namespace of its own, nested in bwrap's (where the
// caller is uid 0 and holds CAP_NET_ADMIN over the network namespace),
// mapping `uid` and `gid` back in, and drops every capability irreversibly;
// checked after. Calls setup_failed on any error.
void enter_user_namespace_and_drop(uid_t uid, gid_t gid);

}  // namespace cordon::enforcer::net
