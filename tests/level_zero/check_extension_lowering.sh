#!/bin/sh
# The modules the Level Zero backend rewrites (runtime/spirv/extension_lowering.cpp) come out
# valid and free of the rewritten extensions; a module without them comes out unchanged.
#   check_extension_lowering.sh LOWER SPIRV_VAL SPIRV_DIS WORK UNCHANGED MODULE...
set -eu
lower=$1 val=$2 dis=$3 work=$4 unchanged=$5
shift 5
mkdir -p "$work"
for module in "$@"; do
  out="$work/$(basename "$module")"
  said=$("$lower" "$module" "$out")
  echo "$said"
  [ -n "$said" ] || { echo "FAIL: $module: nothing was rewritten"; exit 1; }
  "$val" "$out" || { echo "FAIL: $module: the rewritten module is not valid"; exit 1; }
  if "$dis" "$out" | grep -E 'BitInstructions|GroupNonUniformRotateKHR|SPV_KHR_bit_instructions|SPV_KHR_subgroup_rotate|OpBitField|OpBitReverse|OpBitCount'; then
    echo "FAIL: $module: the lines above are left"
    exit 1
  fi
done
"$lower" "$unchanged" "$work/unchanged.spv"
cmp "$unchanged" "$work/unchanged.spv" || { echo "FAIL: $unchanged was changed"; exit 1; }
echo "all rewritten modules valid; $unchanged unchanged"
