/* The CUDA backend's own OpenCL builtins (cuda/builtins/ and the target-neutral parts of
 * spirv/builtins/, compiled for nvptx64 at build time) as LLVM bitcode, embedded in libxpurt
 * so the PTX compiler needs no file at run time; and apart from them the math functions that
 * call libdevice (cuda/builtins/libdevice_math.cl), linked only where libdevice is found. */
  .section .rodata
  .balign 16
  .globl xpurt_cuda_builtin_bitcode_begin
  .hidden xpurt_cuda_builtin_bitcode_begin
xpurt_cuda_builtin_bitcode_begin:
  .incbin XPURT_CUDA_BUILTIN_BITCODE
  .globl xpurt_cuda_builtin_bitcode_end
  .hidden xpurt_cuda_builtin_bitcode_end
xpurt_cuda_builtin_bitcode_end:
  .balign 16
  .globl xpurt_cuda_libdevice_math_bitcode_begin
  .hidden xpurt_cuda_libdevice_math_bitcode_begin
xpurt_cuda_libdevice_math_bitcode_begin:
  .incbin XPURT_CUDA_LIBDEVICE_MATH_BITCODE
  .globl xpurt_cuda_libdevice_math_bitcode_end
  .hidden xpurt_cuda_libdevice_math_bitcode_end
xpurt_cuda_libdevice_math_bitcode_end:
  .section .note.GNU-stack,"",@progbits
