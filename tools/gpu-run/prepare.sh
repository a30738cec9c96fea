#!/usr/bin/env bash
# Step 1 of a test run on a machine with an NVIDIA GPU and none of Debian's packages (see
# docs/TESTING.md): builds xpurt here, then gathers into .carry/ (git ignores it) the built
# programs, libraries and modules, stripped, and the .deb files of every Debian library they
# load, which step 2 (run.sh) unpacks there into a prefix. Carry .carry/ to that machine with
# the source tree and run tools/gpu-run/run.sh there.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$root/build"
carry="$root/.carry"

cmake -S "$root" -B "$build" -G Ninja >/dev/null
cmake --build "$build"

rm -rf "$carry/xpurt" && mkdir -p "$carry/xpurt" "$carry/debs"
cp -a "$build/bin" "$build/lib" "$carry/xpurt/"
# Only what runs there: no Level Zero driver for the CPU (its tests run here), offline tools,
# older library versions, static libraries, CMake files or debug information.
find "$carry/xpurt" \( -name '*.a' -o -name 'cmake' -o -name '*.d' -o -name 'libze_xpurt_cpu*' \
  -o -name 'xpurt-compile' -o -name 'xpurt-lower-spirv' -o -name 'xpurt_ze_cpu_tests' \
  -o -name 'xpurt_mutation_test' -o -name 'xpurt_spirv_fuzzer' \) -prune -exec rm -rf {} +
current=$(readlink -f "$build/lib/libxpurt.so")
find "$carry/xpurt/lib" -name 'libxpurt.so.*.*.*' ! -name "$(basename "$current")" -delete
find "$carry/xpurt" -type f \( -perm -u+x -o -name '*.so*' \) -exec sh -c \
  'file -b "$1" | grep -q ELF && strip --strip-debug "$1"' _ {} \;

# The Debian packages of the shared libraries the programs load, found with ldd and dpkg -S.
packages=$(
  find "$carry/xpurt" -type f -exec sh -c 'file -b "$1" | grep -q "ELF.*dynamic" && ldd "$1"' _ {} \; |
    awk '/=> \// {print $3}' | sort -u | xargs -r realpath | { xargs -r dpkg -S 2>/dev/null || true; } |
    cut -d: -f1 | sort -u | grep -v -E '^(libc6|libgcc-s1|libstdc\+\+6|libzstd1|zlib1g|libtinfo6|libffi8|liblzma5|libbsd0|libmd0|libedit2)$' || true
)
# Open MPI, for the MPI layer's tests, sample and benchmark: mpiexec, and the components Open
# MPI and PMIx load at run time, which ldd does not see (run.sh's "mpi" points them there).
if [[ -x "$carry/xpurt/bin/xpurt_mpi_tests" ]]; then
  packages=$(printf '%s\n' $packages openmpi-bin openmpi-common libopenmpi3 libpmix2 libhwloc15 \
    libevent-core-2.1-7 libevent-pthreads-2.1-7 | sort -u)
fi
# gperftools' CPU profiler (libprofiler, preloaded through run.sh's XPURT_RUN_WRAPPER) and its
# pprof, where XPURT_CARRY_PROFILER=1: the GPU machines have no perf.
if [[ "${XPURT_CARRY_PROFILER:-0}" == 1 ]]; then
  packages=$(printf '%s\n' $packages libgoogle-perftools4 libtcmalloc-minimal4 libunwind8 \
    google-perftools | sort -u)
fi
(cd "$carry/debs" && rm -f ./*.deb && apt-get download $packages >/dev/null)
# Of libclc, only the NVPTX builtin library (the whole package is ten times larger).
mkdir -p "$carry/clc" && xz -T2 -c /usr/lib/clc/nvptx64--nvidiacl.bc >"$carry/clc/nvptx64--nvidiacl.bc.xz"
# NVIDIA's libdevice, which tools/install-deps.sh fetched, for CUDA's math functions.
mkdir -p "$carry/libdevice" && cp "$root/.deps/cuda/nvvm/libdevice/libdevice.10.bc" "$carry/libdevice/"
echo "prepared $(du -sh "$carry" | cut -f1) in .carry/: $(echo $packages | wc -w) packages"
