// Messages with descriptors over a Unix socket (SCM_RIGHTS), and the
// sender's pid (SCM_CREDENTIALS), which the kernel translates into the
// receiver's pid namespace.
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>

#include "util/fd.h"
#include "util/result.h"

namespace cordon::util {

// A connected SOCK_SEQPACKET pair, both ends close-on-exec.
Result<std::pair<Fd, Fd>> seqpacket_pair();

// Sends `data` (at least one byte), with `fd` attached when it is >= 0 and
// the caller's credentials attached always.
Status send_message(int sock, const std::string& data, int fd = -1);

struct Message {
  std::string data;  // empty at end of stream
  Fd fd;
  pid_t sender = 0;  // 0 when the peer sent no credentials
};
// Blocks for one message; needs SO_PASSCRED on `sock` for `sender`.
Result<Message> receive_message(int sock);

}  // namespace cordon::util
