#include "enforcer/net/socket_factory.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "enforcer/net/drop_privileges.h"
#include "util/unix_socket.h"

namespace cordon::enforcer::net {

namespace {

[[noreturn]] void serve(util::Fd channel) {
  for (;;) {
    auto msg = util::receive_message(channel.get());
    if (!msg || msg->data.empty()) ::_exit(0);
    int family = msg->data == kFactoryTcp6 ? AF_INET6 : AF_INET;
    int type = msg->data == kFactoryUdp4 ? SOCK_DGRAM : SOCK_STREAM;
    if (msg->data != kFactoryUdp4 && msg->data != kFactoryTcp4 && msg->data != kFactoryTcp6) {
      (void)util::send_message(channel.get(), "error unknown request");
      continue;
    }
    util::Fd s(::socket(family, type | SOCK_CLOEXEC, 0));
    if (!s) {
      (void)util::send_message(channel.get(),
                               fmt::format("error socket: {}", std::strerror(errno)));
      continue;
    }
    if (!util::send_message(channel.get(), msg->data, s.get())) ::_exit(0);
  }
}

}  // namespace

util::Fd start_socket_factory(uid_t uid, gid_t gid) {
  auto pair = util::seqpacket_pair();
  if (!pair) setup_failed("socket factory: " + pair.error().message);
  auto& [host_end, factory_end] = *pair;
  pid_t first = ::fork();
  if (first < 0) setup_failed(fmt::format("socket factory: fork: {}", std::strerror(errno)));
  if (first == 0) {
    // Forked twice, so bwrap's init, not the command, is its parent.
    pid_t factory = ::fork();
    if (factory != 0) ::_exit(factory < 0 ? 1 : 0);
    host_end.reset();
    // Out of the terminal's process group: a Ctrl-C is the command's.
    ::setsid();
    int keep = factory_end.get();
    // Nothing of the helper's but the channel: not the control socket, not
    // the command's descriptors.
    for (int fd = 3; fd < keep; ++fd) ::close(fd);
    ::syscall(SYS_close_range, keep + 1, ~0U, 0);
    enter_user_namespace_and_drop(uid, gid);
    serve(std::move(factory_end));
  }
  int status = 0;
  while (::waitpid(first, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) setup_failed("socket factory: fork failed");
  return std::move(host_end);
}

}  // namespace cordon::enforcer::net
