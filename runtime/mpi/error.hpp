// Errors of the MPI layer: a result code and a message that says what was wrong and what to do.
#pragma once

#include <xpurt/xpurt.h>

#include <stdexcept>
#include <string>

namespace xpurt::mpi {

class Error : public std::runtime_error {
 public:
  Error(XpurtResult code, const std::string &message) : std::runtime_error(message), code_(code) {}
  XpurtResult code() const { return code_; }

 private:
  XpurtResult code_;
};

}  // namespace xpurt::mpi
