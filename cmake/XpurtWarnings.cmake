# Warnings are on for every xpurt target and kept clean.
function(xpurt_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                                           -Wno-sign-conversion)
endfunction()

# Tests and benchmarks: GoogleTest's macros trip -Wshadow and -Wconversion, so those stay off.
function(xpurt_set_test_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra)
endfunction()
