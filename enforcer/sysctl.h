// Reading a numeric kernel setting from /proc/sys.
#pragma once

#include <optional>

namespace cordon::enforcer {

// The leading integer of the file at `path`; nullopt when the kernel has no
// such setting (or it is unreadable or not a number), which callers take to
// mean the feature it controls is absent.
std::optional<long> read_sysctl(const char* path);

}  // namespace cordon::enforcer
