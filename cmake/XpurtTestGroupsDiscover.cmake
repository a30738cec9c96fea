# Run by ctest (a TEST_INCLUDE_FILES script that xpurt_add_gtest_groups in
# XpurtTestGroups.cmake writes): lists the program's tests and registers them, a parameterized
# suite's tests one ctest test per suite and parameter. Set before: program, timeout,
# environment.
if(NOT EXISTS "${program}")
  get_filename_component(program_name "${program}" NAME)
  add_test("${program_name}_NOT_BUILT" "${program}")
  return()
endif()
execute_process(COMMAND "${program}" --gtest_list_tests OUTPUT_VARIABLE listing
                RESULT_VARIABLE listed ERROR_VARIABLE listing_errors TIMEOUT 60)
if(NOT listed EQUAL 0)
  message(FATAL_ERROR "${program} --gtest_list_tests failed (${listed}):\n${listing}${listing_errors}")
endif()

# Lines: "Suite." (or "Prefix/Suite."), then "  Test" (or "  Test/param"), each possibly with a
# "  # GetParam() = ..." comment, dropped here with any ';' it has.
string(REGEX REPLACE " +#[^\n]*" "" listing "${listing}")
string(REPLACE ";" "" listing "${listing}")
string(REPLACE "\n" ";" lines "${listing}")

set(groups "")
foreach(line IN LISTS lines)
  if(line MATCHES "^([^ ].*)\\.$")
    set(suite "${CMAKE_MATCH_1}")
  elseif(line MATCHES "^  ([^ ]+)$")
    set(test "${CMAKE_MATCH_1}")
    if(test MATCHES "^DISABLED_" OR suite MATCHES "(^|/)DISABLED_")
      continue()
    endif()
    if(test MATCHES "/([^/]+)$")
      # One ctest test per suite and parameter: Devices/LaunchTest/cpu.
      set(name "${suite}/${CMAKE_MATCH_1}")
      list(FIND groups "${name}" seen)
      if(seen EQUAL -1)
        list(APPEND groups "${name}")
        add_test("${name}" "${program}" "--gtest_filter=${suite}.*/${CMAKE_MATCH_1}")
        # A group runs at least one test: a filter that matched none would pass silently.
        set_tests_properties("${name}" PROPERTIES TIMEOUT ${timeout} ENVIRONMENT "${environment}"
                             FAIL_REGULAR_EXPRESSION "[]] 0 tests from")
      endif()
    else()
      set(name "${suite}.${test}")
      add_test("${name}" "${program}" "--gtest_filter=${name}")
      set_tests_properties("${name}" PROPERTIES TIMEOUT ${timeout} ENVIRONMENT "${environment}"
                           SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")
    endif()
  endif()
endforeach()
