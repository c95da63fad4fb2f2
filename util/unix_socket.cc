#include "util/unix_socket.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace cordon::util {

Result<std::pair<Fd, Fd>> seqpacket_pair() {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
    return sys_error("socketpair");
  return std::pair<Fd, Fd>{Fd(sv[0]), Fd(sv[1])};
}

Status send_message(int sock, const std::string& data, int fd) {
  union {
    char buf[CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(ucred))];
    cmsghdr align;
  } control;
  std::memset(&control, 0, sizeof control);
  iovec iov{const_cast<char*>(data.data()), data.size()};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.buf;
  msg.msg_controllen = 0;
  cmsghdr* c = reinterpret_cast<cmsghdr*>(control.buf);
  if (fd >= 0) {
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
    msg.msg_controllen += CMSG_SPACE(sizeof(int));
    c = reinterpret_cast<cmsghdr*>(control.buf + CMSG_SPACE(sizeof(int)));
  }
  ucred cred{::getpid(), ::getuid(), ::getgid()};
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_CREDENTIALS;
  c->cmsg_len = CMSG_LEN(sizeof(ucred));
  std::memcpy(CMSG_DATA(c), &cred, sizeof cred);
  msg.msg_controllen += CMSG_SPACE(sizeof(ucred));
  while (::sendmsg(sock, &msg, MSG_NOSIGNAL) < 0) {
    if (errno != EINTR) return sys_error("sendmsg");
  }
  return {};
}

Result<Message> receive_message(int sock) {
  char buf[4096];
  union {
    char buf[CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(ucred))];
    cmsghdr align;
  } control;
  iovec iov{buf, sizeof buf};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.buf;
  msg.msg_controllen = sizeof control.buf;
  ssize_t n;
  while ((n = ::recvmsg(sock, &msg, MSG_CMSG_CLOEXEC)) < 0) {
    if (errno != EINTR) return sys_error("recvmsg");
  }
  Message out;
  out.data.assign(buf, static_cast<size_t>(n));
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET) continue;
    if (c->cmsg_type == SCM_RIGHTS) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
      out.fd.reset(fd);
    } else if (c->cmsg_type == SCM_CREDENTIALS) {
      ucred cred;
      std::memcpy(&cred, CMSG_DATA(c), sizeof cred);
      out.sender = cred.pid;
    }
  }
  return out;
}

}  // namespace cordon::util
