// Sets a variable for a scope and puts back what it held, nesting correctly: which queue a
// thread is running commands of, kept in thread-locals.
#pragma once

namespace xpurt::core {

template <class T>
class ScopedValue {
 public:
  ScopedValue(T &slot, T value) : slot_(slot), saved_(slot) { slot_ = value; }
  ~ScopedValue() { slot_ = saved_; }
  ScopedValue(const ScopedValue &) = delete;
  ScopedValue &operator=(const ScopedValue &) = delete;

 private:
  T &slot_;
  T saved_;
};

}  // namespace xpurt::core
