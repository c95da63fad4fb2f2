// Memory files: file contents handed to another process (bwrap's
// --ro-bind-data, --seccomp) by descriptor, never written to disk.
#pragma once

#include <string>

#include "util/fd.h"
#include "util/result.h"

namespace cordon::util {

// A close-on-exec memory file holding `contents`, positioned at its start.
// `name` shows in /proc/<pid>/fd links only.
Result<Fd> memfd_with(const char* name, const std::string& contents);

}  // namespace cordon::util
