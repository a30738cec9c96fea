/* The CUDA backend's own OpenCL builtins (cuda/builtins/ and the target-neutral parts of
 * spirv/builtins/, compiled for nvptx64 at build time) as LLVM bitcode, embedded in libxpurt
 * so the PTX compiler needs no file at run time. */
  .section .rodata
  .balign 16
  .globl xpurt_cuda_builtin_bitcode_begin
  .hidden xpurt_cuda_builtin_bitcode_begin
xpurt_cuda_builtin_bitcode_begin:
  .incbin XPURT_CUDA_BUILTIN_BITCODE
  .globl xpurt_cuda_builtin_bitcode_end
  .hidden xpurt_cuda_builtin_bitcode_end
xpurt_cuda_builtin_bitcode_end:
  .section .note.GNU-stack,"",@progbits
