# XPURT_SANITIZE=address,undefined (or thread) instruments everything built in this tree.
if(XPURT_SANITIZE)
  add_compile_options(-fsanitize=${XPURT_SANITIZE} -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${XPURT_SANITIZE})
endif()

# A fuzzing tree instruments everything for coverage; the fuzzer links libFuzzer's main.
if(XPURT_BUILD_FUZZERS)
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
