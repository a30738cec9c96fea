#!/usr/bin/env python3
"""Runs the pipeline sample with XPURT_TRACE and checks the trace: valid JSON (the Chrome
trace-event array format), named tracks, no overlapping slices within a track, at least two
tracks whose slices overlap in time, and
flow arrows for the cross-queue waits. Then checks that a trace path that cannot be written is
a clear error at start.

    check_pipeline_trace.py <pipeline_sample> <trace file>
"""
import json
import os
import subprocess
import sys


def fail(message):
    print("FAIL:", message)
    sys.exit(1)


def main():
    sample, path = sys.argv[1], sys.argv[2]
    env = dict(os.environ, XPURT_CPU_DEVICE_MEMORY="separate", XPURT_TRACE=path,
               XPURT_DEVICE="cpu")
    run = subprocess.run([sample, "10", "262144", "4"], env=env, capture_output=True, text=True)
    print(run.stdout)
    if run.returncode != 0:
        fail(f"the sample failed ({run.returncode}): {run.stderr}")

    with open(path) as f:
        events = json.load(f)  # raises on anything that is not complete JSON
    if not isinstance(events, list):
        fail("the trace is not a JSON array of events")
    names = {e["tid"]: e["args"]["name"] for e in events if e.get("name") == "thread_name"}
    slices = [e for e in events if e.get("ph") == "X"]
    for e in slices:
        if e["tid"] not in names:
            fail(f"a slice on an unnamed track: {e}")
        if e["dur"] < 0:
            fail(f"a slice with a negative duration: {e}")
    kinds = {e["cat"] for e in slices}
    if not {"copy", "kernel"} <= kinds:
        fail(f"expected copy and kernel slices, found {sorted(kinds)}")

    by_track = {}
    for e in slices:
        by_track.setdefault(e["tid"], []).append((e["ts"], e["ts"] + e["dur"]))
    # Within a track, slices follow one another (viewers draw overlapping ones as nested):
    # commands that run side by side go on tracks of their own.
    for track, spans in by_track.items():
        spans.sort()
        for (s1, e1), (s2, e2) in zip(spans, spans[1:]):
            if s2 < e1 - 0.002:  # microseconds, written to 3 decimals
                fail(f"slices overlap within track '{names[track]}': {s1}-{e1} and {s2}-{e2}")
    overlapping = set()
    tracks = sorted(by_track)
    for i, a in enumerate(tracks):
        for b in tracks[i + 1:]:
            if any(s1 < e2 and s2 < e1 for s1, e1 in by_track[a] for s2, e2 in by_track[b]):
                overlapping.add((names[a], names[b]))
    if not overlapping:
        fail("no two tracks have slices that overlap in time")
    flows = [e for e in events if e.get("ph") in ("s", "f")]
    if not flows:
        fail("no flow arrows for the cross-queue waits")
    print(f"trace: {len(events)} events, {len(by_track)} tracks with slices, "
          f"{len(overlapping)} pairs of tracks overlap, {len(flows) // 2} flow arrows")

    bad = dict(env, XPURT_TRACE=os.path.join(path + ".missing-folder", "trace.json"))
    run = subprocess.run([sample, "1", "1024", "1"], env=bad, capture_output=True, text=True)
    if run.returncode == 0 or "the trace file cannot be written" not in run.stderr:
        fail(f"a bad trace path was not a clear error: rc {run.returncode}, {run.stderr!r}")
    print("a bad trace path:", run.stderr.strip())


main()
