#!/bin/sh
# The launch-value variants the Level Zero backend builds for partial work-groups
# (runtime/spirv/launch_values.cpp) come out valid, and Intel's offline compiler builds them
# for a data-centre GPU where it is installed (Debian's intel-opencl-icd).
#   check_launch_value_variants.sh LOWER SPIRV_VAL WORK MODULE...
set -eu
lower=$1 val=$2 work=$3
shift 3
mkdir -p "$work"
ocloc=$(command -v ocloc || true)
for module in "$@"; do
  out="$work/$(basename "$module" .spv).launch_values.spv"
  said=$("$lower" --launch-values "$module" "$out")
  echo "$said"
  echo "$said" | grep -q "kernels take the launch values" ||
    { echo "FAIL: $module: no kernel takes the launch values"; exit 1; }
  "$val" "$out" || { echo "FAIL: $module: the variant is not valid"; exit 1; }
  if [ -n "$ocloc" ]; then
    "$ocloc" compile -spirv_input -file "$out" -device pvc -output_no_suffix \
      -output "$work/$(basename "$module" .spv).pvc" >"$work/ocloc.log" 2>&1 ||
      { cat "$work/ocloc.log"; echo "FAIL: $module: ocloc refused the variant"; exit 1; }
    echo "$module: ocloc built the variant for pvc"
  fi
done
echo "all variants valid"
