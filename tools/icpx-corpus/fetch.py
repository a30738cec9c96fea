#!/usr/bin/env python3
"""Builds a corpus of real SPIR-V modules that icpx compiled from SYCL, for xpurt-corpus.

SYCL libraries built with icpx for the spir64 target carry their device code in the ELF
section __CLANG_OFFLOAD_BUNDLE__sycl-spir64 of their shared libraries: SPIR-V modules one after
another (one per kernel, or per source file, as they were split). This fetches the wheels of
Intel's Data Parallel Extension for NumPy and its SYCL control library from PyPI (dpnp, dpctl:
hundreds of kernels - elementwise functions, reductions, scans, sorts, linear algebra), takes
every module out of every library, drops duplicates and writes a random sample of them.

  fetch.py OUTDIR [--sample N] [--seed S]

OUTDIR gets the modules (<library>-<index>.spv) and corpus.txt, a line per module: its file,
the library it came from and its size. Needs pip and network access to PyPI.
"""
import argparse
import hashlib
import pathlib
import random
import struct
import subprocess
import sys
import tempfile
import zipfile

WHEELS = ["dpnp==0.20.0", "dpctl==0.22.1"]
SECTION = b"__CLANG_OFFLOAD_BUNDLE__sycl-spir64"
MAGIC = 0x07230203


def sections(elf):
    """The named sections of a 64-bit little-endian ELF file, as {name: bytes}."""
    if elf[:4] != b"\x7fELF" or elf[4] != 2 or elf[5] != 1:
        return {}
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize) for i in range(shnum)]
    strtab = headers[shstrndx]
    names = elf[strtab[4]:strtab[4] + strtab[5]]
    out = {}
    for h in headers:
        name = names[h[0]:names.index(b"\0", h[0])]
        if h[1] != 8:  # not SHT_NOBITS
            out[name] = elf[h[4]:h[4] + h[5]]
    return out


def modules(blob):
    """The SPIR-V modules of a section: each begins with the magic number at an instruction
    boundary of the one before it, or after zero words that pad that one."""
    words = struct.unpack_from("<%dI" % (len(blob) // 4), blob)
    found, at = [], 0
    while at < len(words) and words[at] == MAGIC:
        start, at = at, at + 5
        while at < len(words) and words[at] not in (MAGIC, 0):
            at += words[at] >> 16
        end = min(at, len(words))
        while at < len(words) and words[at] == 0:
            at += 1
        found.append(blob[start * 4:end * 4])
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("outdir")
    parser.add_argument("--sample", type=int, default=400)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    out = pathlib.Path(args.outdir)
    out.mkdir(parents=True, exist_ok=True)
    found, seen = [], set()
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                        "--only-binary=:all:", "--python-version", "3.12",
                        "--platform", "manylinux_2_28_x86_64", "-d", tmp] + WHEELS, check=True)
        for wheel in sorted(pathlib.Path(tmp).glob("*.whl")):
            with zipfile.ZipFile(wheel) as z:
                for name in sorted(z.namelist()):
                    if not (name.endswith(".so") or ".so." in name):
                        continue
                    blob = sections(z.read(name)).get(SECTION)
                    if not blob:
                        continue
                    library = pathlib.Path(name).name.split(".")[0]
                    for module in modules(blob):
                        digest = hashlib.sha256(module).hexdigest()
                        if digest not in seen:
                            seen.add(digest)
                            found.append((library, module))
    random.Random(args.seed).shuffle(found)
    sample = found[:args.sample]
    with open(out / "corpus.txt", "w") as manifest:
        for index, (library, module) in enumerate(sample):
            file = "%s-%04d.spv" % (library, index)
            (out / file).write_bytes(module)
            manifest.write("%s %s %d\n" % (file, library, len(module)))
    print("%d distinct modules in %s; %d written to %s" %
          (len(found), ", ".join(WHEELS), len(sample), out))


if __name__ == "__main__":
    main()
