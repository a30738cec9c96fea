// Exact checks of many builtin results against host references, for the value suites
// (integer_values_test.cpp, conversion_values_test.cpp). Every result is checked; a function
// that is wrong on many inputs reports its first few with their inputs, then how many of its
// results were wrong, so that one broken builtin does not bury the others.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>

namespace xpurt::test {

class ValueChecks {
 public:
  static constexpr size_t shownPerFunction = 6;

  explicit ValueChecks(std::string what) : what_(std::move(what)) {}
  ValueChecks(const ValueChecks &) = delete;
  ValueChecks &operator=(const ValueChecks &) = delete;

  // Records one check of function (its name, with the type it ran on) on the input described
  // by describe() (called only on a failure, so it may be slow): ok says whether the result
  // was right, explain() (also only on a failure) says what it was and what was expected.
  template <class Describe, class Explain>
  void check(const std::string &function, bool ok, Describe describe, Explain explain) {
    ++checks_;
    Tally &t = tally_[function];
    ++t.checked;
    if (ok) return;
    if (++t.wrong <= shownPerFunction)
      ADD_FAILURE() << function << "(" << describe() << ") = " << explain();
  }

  // A result that the reference does not define (an out-of-range conversion without _sat):
  // counted as skipped, not checked.
  void skip() { ++skipped_; }

  size_t checks() const { return checks_; }

  // Reports the functions that were wrong more often than shown, and the number of checks.
  ~ValueChecks() {
    for (const auto &[function, t] : tally_)
      if (t.wrong > shownPerFunction)
        ADD_FAILURE() << function << ": " << t.wrong << " of " << t.checked
                      << " results wrong (the first " << shownPerFunction << " shown above)";
    std::printf(
        "[   VALUES ] %s: %zu results checked in %zu functions, %zu undefined ones skipped\n",
        what_.c_str(), checks_, tally_.size(), skipped_);
  }

 private:
  struct Tally {
    size_t checked = 0, wrong = 0;
  };
  std::string what_;
  std::map<std::string, Tally> tally_;
  size_t checks_ = 0, skipped_ = 0;
};

}  // namespace xpurt::test
