// The exception every layer below the C API throws; the API turns it into a result code.
#pragma once

#include <xpurt/xpurt.h>

#include <spdlog/fmt/fmt.h>

#include <stdexcept>
#include <string>

namespace xpurt::core {

class Error : public std::runtime_error {
 public:
  Error(XpurtResult code, const std::string &message) : std::runtime_error(message), code_(code) {}
  XpurtResult code() const { return code_; }

 private:
  XpurtResult code_;
};

template <class... Args>
[[noreturn]] void fail(XpurtResult code, fmt::format_string<Args...> format, Args &&...args) {
  throw Error(code, fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace xpurt::core
