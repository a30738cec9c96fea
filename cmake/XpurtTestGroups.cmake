# xpurt_add_gtest_groups(<target> TIMEOUT <seconds> [ENVIRONMENT <var=value>...])
#
# Registers the tests of a GoogleTest program with ctest as gtest_discover_tests does (when
# ctest runs, from the program's --gtest_list_tests), except that the tests of a parameterized
# suite run as one ctest test per suite and parameter (Devices/LaunchTest/cpu runs
# --gtest_filter=Devices/LaunchTest.*/cpu): every test still runs, in its own process for
# plain suites, and a suite's tests on one device share one. A process costs 0.1 s to start
# and end in the plain build and 0.36 s under ASan at -O0 (docs/TESTING.md), more than most of
# these tests take, and the suite has some 600 of them.
function(xpurt_add_gtest_groups target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "TIMEOUT" "ENVIRONMENT")
  set(script "${CMAKE_CURRENT_BINARY_DIR}/${target}_groups.cmake")
  file(GENERATE OUTPUT "${script}" CONTENT "
set(program \"$<TARGET_FILE:${target}>\")
set(timeout ${arg_TIMEOUT})
set(environment \"${arg_ENVIRONMENT}\")
include(\"${PROJECT_SOURCE_DIR}/cmake/XpurtTestGroupsDiscover.cmake\")
")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${script}")
endfunction()
