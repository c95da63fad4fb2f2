// Result<T>: a value or an Error that the caller can handle.
//
// Errors that a caller can do something about are returned, never thrown.
// An Error carries one line of text in cordon's style ("<what>: <why>") and an
// optional errno so callers can branch on the cause (ENOENT vs EACCES ...).
#pragma once

#include <cerrno>
#include <string>
#include <utility>
#include <variant>

namespace cordon::util {

struct Error {
  std::string message;
  int errno_value = 0;
};

// "<call>: <strerror(err)>", the one way system-call failures are worded.
Error sys_error(std::string what, int err = errno);

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Error error) : v_(std::move(error)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  const T& value() const& { return std::get<0>(v_); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// Result<void>: success or an Error.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), failed_(true) {}
  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  const Error& error() const { return error_; }

 private:
  Error error_;
  bool failed_ = false;
};

using Status = Result<void>;

}  // namespace cordon::util
