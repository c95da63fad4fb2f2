#include "util/result.h"

#include <cstring>

namespace cordon::util {

Error sys_error(std::string what, int err) {
  return Error{std::move(what) + ": " + std::strerror(err), err};
}

}  // namespace cordon::util
