// Internal to schema/: the one wording of SQLite failures for a trace file.
#pragma once

#include <string>

#include "util/result.h"

namespace SQLite {
class Exception;
}

namespace cordon::schema {

// "<file>: <why>", with "not a cordon trace" and "corrupt" said plainly.
util::Error db_error(const std::string& path, const SQLite::Exception& e);

}  // namespace cordon::schema
