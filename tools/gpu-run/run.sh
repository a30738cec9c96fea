#!/usr/bin/env bash
# Step 2 of a GPU test run (see prepare.sh and docs/TESTING.md), on the GPU machine, from the
# source tree with .carry/ beside it: unpacks the carried Debian libraries into a prefix (never
# into /) and runs what the arguments name, with the libraries found there:
#   run.sh tests [GTEST_FILTER]   the test suite (default: every test)
#   run.sh bench NAME [ARGS...]   a benchmark program of build/bin
#   run.sh exec PROGRAM [ARGS...] any program of build/bin (samples, xpurt-info)
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
  *) echo "usage: run.sh tests [FILTER] | bench NAME [ARGS] | exec PROGRAM [ARGS]" >&2; exit 2 ;;
esac
