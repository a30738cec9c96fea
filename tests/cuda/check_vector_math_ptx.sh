#!/bin/sh
# A large vector math builtin compiles to one scalar function that its PTX calls once per
# element, not to one inlined copy per element; a small one stays inlined. With libclc's math
# (runtime/cuda/nvptx_vector_math.cpp) and, where the build found libdevice (LIBDEVICE is
# "libdevice"), with libdevice's (runtime/cuda/builtins/libdevice_math.cl).
# With libdevice, also what brings sin_cos_pow_float4 near nvcc's speed: libdevice's nvvm.round
# as rint (cvt.rni), not a trunc-based round; with PTXAS, its registers (48 where MachineSink
# ran, 32 without it: runtime/cuda/ptx_compiler.cpp, emitPtx; nvcc's of the same source, 24);
# and that group_sums reads its group id from its parameters, not through shared memory
# (runtime/cuda/nvptx_kernels.cpp, forwardLaunchValues).
#   check_vector_math_ptx.sh COMPILE MODULE WORK [LIBDEVICE [PTXAS]]   (COMPILE: xpurt-compile)
set -eu
compile=$1 module=$2 work=$3 libdevice=${4:-} ptxas=${5:-}
mkdir -p "$work"
ptx="$work/vector_math.ptx"
XPURT_LIBDEVICE=none "$compile" --target ptx -o "$ptx" "$module" >/dev/null
# The PTX of a call names its callee on a line of its own: "\t_Z6lgammad, ".
calls() { awk "/^\.visible \.entry $2\(/,/^}/" "$ptx" | grep -cE "^[[:space:]]*$1,[[:space:]]*$" || true; }
functions() { grep -cE "^\.func .*[[:space:]]$1\($" "$ptx" || true; }
fail=0
check() {
  if [ "$2" != "$3" ]; then
    echo "FAIL: $1: $2, expected $3"
    fail=1
  else
    echo "ok: $1: $2"
  fi
}
check "functions _Z6lgammad" "$(functions _Z6lgammad)" 1
check "calls of _Z6lgammad (lgamma of a double16)" "$(calls _Z6lgammad lgamma_double16)" 16
sincos=$(grep -oE "^\.func .*[[:space:]](_Z6sincosfP[A-Za-z0-9_]*)\($" "$ptx" | grep -oE "_Z6sincosfP[A-Za-z0-9_]*" || true)
check "scalar sincos functions" "$(echo "$sincos" | grep -c . || true)" 1
[ -z "$sincos" ] || check "calls of $sincos (sincos of a float4)" "$(calls "$sincos" sincos_float4)" 4
check "functions for fabs (inlined)" "$(grep -cE "^\.func .*fabs" "$ptx" || true)" 0
check "calls in fabs_float4" "$(awk '/^\.visible \.entry fabs_float4\(/,/^}/' "$ptx" | grep -c "call" || true)" 0
if [ "$libdevice" = libdevice ]; then
  "$compile" --target ptx -o "$ptx" "$module" >/dev/null
  echo "with libdevice:"
  check "functions xp_lgamma_double" "$(functions xp_lgamma_double)" 1
  check "calls of xp_lgamma_double (lgamma of a double16)" "$(calls xp_lgamma_double lgamma_double16)" 16
  check "calls in fabs_float4" "$(awk '/^\.visible \.entry fabs_float4\(/,/^}/' "$ptx" | grep -c "call" || true)" 0
  entry() { awk "/^\.visible \.entry $1\(/,/^}/" "$ptx"; }
  check "roundings to nearest even in sin_cos_pow_float4 (pow's 4, sin's and cos's 8)" \
    "$(entry sin_cos_pow_float4 | grep -c "cvt.rni" || true)" 12
  check "float truncations in sin_cos_pow_float4" \
    "$(entry sin_cos_pow_float4 | grep -c "cvt.rzi.f32.f32" || true)" 0
  check "launch values stored in shared memory by group_sums" \
    "$(entry group_sums | grep -c 'st.shared.*xpurt_' || true)" 0
  if [ -n "$ptxas" ]; then
    regs=$("$ptxas" -arch=sm_90 -v -o "$work/vector_math.cubin" "$ptx" 2>&1 |
      awk '/entry function .sin_cos_pow_float4./ {f = 1} f && /Used [0-9]+ registers/ {print $5; exit}')
    check "sin_cos_pow_float4 uses at most 40 registers" "$([ "${regs:-99}" -le 40 ] && echo yes || echo "no ($regs)")" yes
  fi
fi
exit $fail
