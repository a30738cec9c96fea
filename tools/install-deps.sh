#!/usr/bin/env bash
# Installs the Debian 12 packages xpurt builds, tests and benchmarks with. Run as root.
# Installs only what is missing, so it is quick on a machine that has them.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config python3
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd
  clang-15 llvm-15-dev llvm-spirv-15 libllvmspirvlib-15-dev libclc-15 spirv-tools spirv-headers
  libtbb-dev libspdlog-dev libfmt-dev
  libze1 libze-dev intel-opencl-icd
  libgtest-dev libgmock-dev libbenchmark-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
