#!/usr/bin/env bash
# Installs the Debian 12 packages xpurt builds, tests and benchmarks with, and fetches the
# CUDA files Debian does not have. Run as root. Installs and fetches only what is missing, so
# it is quick on a machine that has them.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config python3 python3-pip
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd
  clang-15 llvm-15-dev llvm-spirv-15 libllvmspirvlib-15-dev libclc-15 spirv-tools spirv-headers
  libtbb-dev libspdlog-dev libfmt-dev
  libze1 libze-dev intel-opencl-icd
  libgtest-dev libgmock-dev libbenchmark-dev
  libopenmpi-dev openmpi-bin
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

# CUDA: a genuine cuda.h to build the CUDA backend against (the driver is opened at run time)
# and ptxas to check the PTX xpurt generates, from NVIDIA's PyPI wheels into .deps/cuda (git
# ignores it). No CUDA toolkit or driver is needed to build or test.
cuda_version=13.5.37
deps="$(cd "$(dirname "$0")/.." && pwd)/.deps/cuda"
if [[ ! -f "$deps/include/cuda.h" || ! -x "$deps/bin/ptxas" ]]; then
  echo "fetching cuda.h and ptxas $cuda_version (PyPI: nvidia-cuda-runtime, nvidia-cuda-nvcc)"
  wheels="$(mktemp -d)"
  trap 'rm -rf "$wheels"' EXIT
  python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 \
    --platform "manylinux2014_$(uname -m)" --platform "manylinux_2_17_$(uname -m)" -d "$wheels" \
    "nvidia-cuda-runtime==$cuda_version" "nvidia-cuda-nvcc==$cuda_version"
  python3 - "$wheels" "$deps" <<'PY'
import pathlib, sys, zipfile
wheels, deps = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
wanted = {"include/cuda.h": "include", "include/cudaTypedefs.h": "include", "bin/ptxas": "bin"}
for wheel in wheels.glob("*.whl"):
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            for tail, folder in wanted.items():
                if name.endswith("/" + tail):
                    out = deps / folder / pathlib.Path(tail).name
                    out.parent.mkdir(parents=True, exist_ok=True)
                    out.write_bytes(z.read(name))
                    if folder == "bin":
                        out.chmod(0o755)
PY
  test -f "$deps/include/cuda.h" && test -x "$deps/bin/ptxas"
fi

# libdevice, NVIDIA's math library as LLVM bitcode, which the PTX compiler links for CUDA's own
# math functions: in the CUDA 12 nvcc wheel (the CUDA 13 one above no longer ships it).
libdevice_version=12.9.86
if [[ ! -f "$deps/nvvm/libdevice/libdevice.10.bc" ]]; then
  echo "fetching libdevice $libdevice_version (PyPI: nvidia-cuda-nvcc-cu12)"
  libdevice_wheels="$(mktemp -d)"
  trap 'rm -rf "${wheels:-}" "$libdevice_wheels"' EXIT
  python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 \
    --platform "manylinux2014_$(uname -m)" --platform "manylinux_2_12_$(uname -m)" \
    -d "$libdevice_wheels" "nvidia-cuda-nvcc-cu12==$libdevice_version"
  python3 - "$libdevice_wheels" "$deps" <<'PY'
import pathlib, sys, zipfile
wheels, deps = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
for wheel in wheels.glob("*.whl"):
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            if name.endswith("/nvvm/libdevice/libdevice.10.bc"):
                out = deps / "nvvm" / "libdevice" / "libdevice.10.bc"
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_bytes(z.read(name))
PY
  test -f "$deps/nvvm/libdevice/libdevice.10.bc"
fi
