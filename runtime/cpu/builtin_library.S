/* libclc's OpenCL builtin library, read from SPIR-V into LLVM bitcode at build time, embedded
 * in libxpurt so the CPU JIT needs no file at run time. */
  .section .rodata
  .balign 16
  .globl xpurt_builtin_bitcode_begin
  .hidden xpurt_builtin_bitcode_begin
xpurt_builtin_bitcode_begin:
  .incbin XPURT_BUILTIN_BITCODE
  .globl xpurt_builtin_bitcode_end
  .hidden xpurt_builtin_bitcode_end
xpurt_builtin_bitcode_end:
  .section .note.GNU-stack,"",@progbits
