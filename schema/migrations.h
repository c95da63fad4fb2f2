// The trace schema's SQL, compiled in from schema/sql/ (see CMakeLists.txt).
#pragma once

namespace cordon::schema {

// The full schema of `version`, applied to an empty database.
const char* schema_sql(int version);
// The script that takes a trace from `from` to `from + 1`.
const char* migration_sql(int from);

}  // namespace cordon::schema
