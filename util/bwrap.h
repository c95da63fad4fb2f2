// Where bubblewrap is. Found once, by absolute path: never through PATH,
// which routinely holds user-writable directories a hostile program could
// plant a fake bwrap in.
#pragma once

#include <string>

#include "util/result.h"

namespace cordon::util {

// $CORDON_BWRAP when set (must be absolute; for tests and unusual installs),
// else the first executable of /usr/bin/bwrap, /usr/local/bin/bwrap,
// /bin/bwrap.
Result<std::string> find_bwrap();

}  // namespace cordon::util
