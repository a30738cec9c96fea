#!/usr/bin/env python3
"""Checks that docs/ISPCRT_COMPATIBILITY.md gives every function of include/ispcrt/ispcrt.h a
row of its own name (`ispcrtName`) in its table of functions, and names none that the header
lacks. Usage: check_ispcrt_compatibility.py SOURCE_DIR"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
header = (root / "include/ispcrt/ispcrt.h").read_text()
doc = (root / "docs/ISPCRT_COMPATIBILITY.md").read_text()
declared = set(re.findall(r"ISPCRT_API\s+[^;{]*?\b(ispcrt\w+)\s*\(", header))
table = doc.split("## Every function", 1)[1].split("\n## ", 1)[0]
listed = set()
for line in table.splitlines():
    if line.startswith("| `ispcrt"):
        first_cell = line.split("|")[1]
        listed |= set(re.findall(r"`(ispcrt\w+)`", first_cell))
missing = sorted(declared - listed)
unknown = sorted(listed - declared)
if missing:
    print("functions of ispcrt.h without a row:", ", ".join(missing))
if unknown:
    print("rows for functions ispcrt.h does not declare:", ", ".join(unknown))
print(f"{len(declared)} functions declared, {len(listed & declared)} listed")
sys.exit(1 if missing or unknown else 0)
