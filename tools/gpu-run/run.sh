#!/usr/bin/env bash
# Step 2 of a GPU test run (see prepare.sh and docs/TESTING.md), on the GPU machine, from the
# source tree with .carry/ beside it: unpacks the carried Debian libraries into a prefix (never
# into /) and runs what the arguments name, with the libraries found there:
#   run.sh tests [GTEST_FILTER]   the test suite (default: every test)
#   run.sh bench NAME [ARGS...]   a benchmark program of build/bin
#   run.sh exec PROGRAM [ARGS...] any program of build/bin (samples, xpurt-info)
#   run.sh mpi RANKS PROGRAM [ARGS...]  a program of build/bin as RANKS ranks of Open MPI's
#                                 mpiexec (carried too), over shared memory, one per GPU
# XPURT_RUN_WRAPPER, if set, is a command line the program runs under (perf record …, gdb …).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
carry="$root/.carry"
prefix="$carry/prefix"
if [[ ! -d "$prefix" ]]; then
  mkdir -p "$prefix"
  for deb in "$carry"/debs/*.deb; do dpkg -x "$deb" "$prefix"; done
  xz -dc "$carry/clc/nvptx64--nvidiacl.bc.xz" >"$prefix/nvptx64--nvidiacl.bc"
fi
export LD_LIBRARY_PATH="$carry/xpurt/lib:$prefix/usr/lib/x86_64-linux-gnu:$prefix/usr/lib/llvm-15/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export XPURT_LIBCLC_NVPTX="$prefix/nvptx64--nvidiacl.bc"
# XPURT_LIBDEVICE=none for libclc's math instead of libdevice's.
export XPURT_LIBDEVICE="${XPURT_LIBDEVICE:-$carry/libdevice/libdevice.10.bc}"
export XPURT_CACHE_DIR="${XPURT_CACHE_DIR:-$carry/jit-cache}"
bin="$carry/xpurt/bin"
cd "$bin"
what="${1:-tests}"
shift || true
read -r -a wrapper <<<"${XPURT_RUN_WRAPPER:-}"
case "$what" in
  tests) exec "${wrapper[@]}" ./xpurt_tests --gtest_filter="${1:-*}" ;;
  bench) name="$1"; shift; exec "${wrapper[@]}" "./$name" "$@" ;;
  exec) name="$1"; shift; exec "${wrapper[@]}" "./$name" "$@" ;;
  mpi)
    ranks="$1" name="$2"; shift 2
    # Open MPI and PMIx find their components and help files under the prefix, not /usr;
    # orterun is mpiexec (Debian links mpiexec to it through update-alternatives).
    lib="$prefix/usr/lib/x86_64-linux-gnu"
    export OPAL_PREFIX="$prefix/usr" OPAL_LIBDIR="$lib/openmpi/lib" \
      OPAL_PKGLIBDIR="$lib/openmpi/lib/openmpi3" OPAL_PKGDATADIR="$prefix/usr/share/openmpi" \
      OPAL_SYSCONFDIR="$prefix/etc/openmpi" PMIX_INSTALL_PREFIX="$lib/pmix2" \
      PMIX_MCA_mca_base_component_path="$lib/pmix2/lib/pmix" \
      OMPI_MCA_mca_base_component_path="$lib/openmpi/lib/openmpi3" \
      LD_LIBRARY_PATH="$lib/openmpi/lib:$lib/pmix2/lib:$LD_LIBRARY_PATH" \
      OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
    # --bind-to none: Open MPI binds each of up to two ranks to one core by default, where a
    # rank's threads (its queue's, the MPI layer's) would share it.
    read -r -a extra <<<"${XPURT_MPIEXEC_ARGS:-}"  # e.g. --enable-recovery
    exec "$prefix/usr/bin/orterun" --oversubscribe --mca pml ob1 --mca btl self,vader --bind-to none "${extra[@]}" \
      -x LD_LIBRARY_PATH -x XPURT_LIBCLC_NVPTX -x XPURT_LIBDEVICE -x XPURT_CACHE_DIR \
      -np "$ranks" "${wrapper[@]}" "./$name" "$@" ;;
  *) echo "usage: run.sh tests [FILTER] | bench NAME [ARGS] | exec PROGRAM [ARGS] | mpi RANKS PROGRAM [ARGS]" >&2; exit 2 ;;
esac
