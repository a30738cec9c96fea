// The Level Zero loader of this test binary finds xpurt's Level Zero driver for the CPU
// (runtime/ze_cpu) with the validation layer and its parameter checks on, unless the
// environment already says otherwise (ZE_ENABLE_ALT_DRIVERS naming other drivers as well, or
// ZE_ENABLE_VALIDATION_LAYER=0 for a run without it). Set before main, so before the loader
// starts: gtest lists the conformance devices while it registers the tests.
#include <cstdlib>

namespace {

const bool environmentSet = [] {
  setenv("ZE_ENABLE_ALT_DRIVERS", XPURT_ZE_CPU_DRIVER, 0);
  setenv("ZE_ENABLE_VALIDATION_LAYER", "1", 0);
  setenv("ZE_ENABLE_PARAMETER_VALIDATION", "1", 0);
  return true;
}();

}  // namespace
