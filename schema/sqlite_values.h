// Internal to schema/: optional values in and out of SQLite, NULL for none.
// Paths and argv are BLOBs (bytes as the kernel gave them); other strings
// are TEXT.
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>

#include <cstdint>
#include <optional>
#include <string>

namespace cordon::schema {

inline void bind_blob(SQLite::Statement& st, int idx, const std::optional<std::string>& v) {
  if (v) {
    st.bind(idx, v->data(), static_cast<int>(v->size()));
  } else {
    st.bind(idx);
  }
}

inline void bind_text(SQLite::Statement& st, int idx, const std::optional<std::string>& v) {
  if (v) {
    st.bind(idx, *v);
  } else {
    st.bind(idx);
  }
}

template <typename T>
void bind_opt(SQLite::Statement& st, int idx, const std::optional<T>& v) {
  if (v) {
    st.bind(idx, static_cast<int64_t>(*v));
  } else {
    st.bind(idx);
  }
}

inline std::optional<std::string> col_blob(const SQLite::Column& c) {
  if (c.isNull()) return std::nullopt;
  return std::string(static_cast<const char*>(c.getBlob()), c.getBytes());
}

inline std::optional<std::string> col_text(const SQLite::Column& c) {
  if (c.isNull()) return std::nullopt;
  return c.getString();
}

inline std::optional<int64_t> col_int(const SQLite::Column& c) {
  if (c.isNull()) return std::nullopt;
  return c.getInt64();
}

}  // namespace cordon::schema
