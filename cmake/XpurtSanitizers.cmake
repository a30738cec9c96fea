# XPURT_SANITIZE=address,undefined (or thread) instruments everything built in this tree.
if(XPURT_SANITIZE)
  add_compile_options(-fsanitize=${XPURT_SANITIZE} -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${XPURT_SANITIZE})
endif()
