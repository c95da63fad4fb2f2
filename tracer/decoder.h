// Decoder: one seccomp notification → one trace event.
//
// Reads the call's arguments out of the blocked task and resolves every path
// to absolute form, the way the kernel is about to: relative names against
// the thread's cwd or the dirfd, AT_EMPTY_PATH as the fd itself. Existence is
// checked in the task's own mount namespace (through /proc/<pid>/root) before
// the call runs. A failure to read an argument is recorded in `fault`, never
// thrown: the call still proceeds and the kernel reports the same fault.
#pragma once

#include <linux/seccomp.h>
#include <sys/types.h>

#include "schema/trace_db.h"
#include "tracer/process_table.h"
#include "tracer/syscall_table.h"

namespace cordon::tracer {

// Fills everything but seq, time_ns and pid/tid.
schema::EventRecord decode_event(const seccomp_data& data, const SyscallSpec& spec,
                                 const TracedProcess& process, pid_t tid);

}  // namespace cordon::tracer
