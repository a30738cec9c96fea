; The CUDA builtins' work-group scratch (collectives.cl): 64 slots of 8 bytes in __shared__
; memory. OpenCL C has no program-scope __local variables, so it is defined here.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@xpurt.cuda.group.scratch = internal addrspace(3) global [512 x i8] undef, align 16

define ptr addrspace(3) @xpurt_cuda_group_scratch() #0 {
  ret ptr addrspace(3) @xpurt.cuda.group.scratch
}

attributes #0 = { alwaysinline nounwind readnone }
