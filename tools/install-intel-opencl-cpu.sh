#!/usr/bin/env bash
# Installs Intel's CPU runtime for OpenCL (PyPI intel-opencl-rt, with the oneTBB it needs) into
# a folder of its own, for the CPU workloads benchmark's Intel baseline
# (bench/workloads_bench.cpp). Nothing outside that folder is touched: the benchmark finds the
# runtime through OCL_ICD_VENDORS=<folder>/etc/OpenCL/vendors in a process of its own.
#
#   tools/install-intel-opencl-cpu.sh [folder]     (default: build/intel-opencl)
set -euo pipefail

prefix="${1:-build/intel-opencl}"
mkdir -p "$prefix"
prefix="$(cd "$prefix" && pwd)"

# intel-cmplr-lib-rt brings the compiler runtime (libimf, libsvml, libirng, libintlc) that
# libintelocl.so needs but the wheel does not declare.
python3 -m pip install --quiet --prefix "$prefix" --no-warn-script-location \
  --break-system-packages --disable-pip-version-check intel-opencl-rt intel-cmplr-lib-rt

# The wheel's ICD file names its library by a placeholder prefix; name the real one.
vendors="$prefix/etc/OpenCL/vendors"
rm -f "$vendors"/*.icd
mkdir -p "$vendors"
echo "$prefix/lib/libintelocl.so" >"$vendors/intel-cpu.icd"
test -f "$prefix/lib/libintelocl.so"
echo "Intel's CPU OpenCL runtime is in $prefix (ICD: $vendors/intel-cpu.icd)"
