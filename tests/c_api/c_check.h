/* For the C programs of the test suite: CHECK(call) returns 1 from main, with the call, its
 * result and the library's message, when an xpurt call fails. */
#ifndef XPURT_TESTS_C_CHECK_H
#define XPURT_TESTS_C_CHECK_H

#include <xpurt/xpurt.h>

#include <stdio.h>

#define CHECK(call)                                                        \
  do {                                                                     \
    XpurtResult r_ = (call);                                               \
    if (r_ != XPURT_SUCCESS) {                                             \
      fprintf(stderr, "%s failed: %s: %s\n", #call, xpurtResultString(r_), \
              xpurtLastErrorMessage());                                    \
      return 1;                                                            \
    }                                                                      \
  } while (0)

#endif
