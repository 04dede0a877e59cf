#!/usr/bin/env python3
"""tessera-sweep under MPI (ctest mpi_sweep; docs/distributed.md).

Checks, on mpi/sweeps/ci.ini (64 runs of 90 steps):
- with 2 ranks (rank 0 hands out, rank 1 runs) the sweep writes 64 lines, in
  run order, every run ok;
- its state hashes equal those of the same sweep in one process (rank 0 runs
  everything) and over 4 ranks (3 workers): where a run ran does not matter;
- each run of the first block (settings tessera-bench takes) has the hash of
  tessera-bench run alone with the same settings;
and on mpi/sweeps/failures.ini that runs the engine refuses are reported
(ok false, the reason in error) while the others go on, and that a bad
description stops the sweep with exit 2 and the line it is on.

usage: check_sweep.py TESSERA_SWEEP TESSERA_BENCH SWEEPS_DIR MPIEXEC [MPIEXEC FLAGS...]
"""
import json
import os
import subprocess
import sys
import tempfile


def run(command):
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def sweep(mpiexec, ranks, binary, description, out):
    command = (mpiexec + [str(ranks)] if ranks > 1 else []) + [binary, description, "--out", out]
    result = run(command)
    if result.returncode != 0:
        raise SystemExit(f"FAIL: {' '.join(command)} exited {result.returncode}: {result.stderr}")
    with open(out) as f:
        return [json.loads(line) for line in f]


def bench_hash(bench, line):
    s = line["sweep"]
    command = [bench, "--scene", s["scene"], "--count", str(s["count"]), "--substeps", str(s["substeps"]),
               "--contact-hertz", str(s["contact_hertz"]), "--solver", s["solver"], "--threads", str(s["threads"]),
               "--steps", str(s["steps"]), "--no-quality", "--json"]
    result = run(command)
    if result.returncode != 0:
        raise SystemExit(f"FAIL: {' '.join(command)}: {result.stderr}")
    return json.loads(result.stdout)["state_hash"]


def main():
    binary, bench, sweeps = sys.argv[1], sys.argv[2], sys.argv[3]
    # mpiexec + its flags, ending with the flag that takes the rank count
    mpiexec = sys.argv[4:]
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        ci = os.path.join(sweeps, "ci.ini")
        two = sweep(mpiexec, 2, binary, ci, os.path.join(tmp, "two.jsonl"))
        if [l["sweep_run"] for l in two] != list(range(64)) or not all(l["ok"] for l in two):
            failures.append("2 ranks: expected runs 0..63 in order, all ok")
        if {l["rank"] for l in two} != {1}:
            failures.append(f"2 ranks: runs ran on ranks {sorted({l['rank'] for l in two})}, expected only 1")
        one = sweep(mpiexec, 1, binary, ci, os.path.join(tmp, "one.jsonl"))
        four = sweep(mpiexec, 4, binary, ci, os.path.join(tmp, "four.jsonl"))
        for name, other in (("1 process", one), ("4 ranks", four)):
            differ = [a["sweep_run"] for a, b in zip(two, other) if a["state_hash"] != b["state_hash"]]
            if len(other) != 64 or differ:
                failures.append(f"{name}: {len(other)} lines, hashes differ from 2 ranks in runs {differ}")
        print(f"64 runs: same hashes over 1 process, 2 ranks and 4 ranks (ranks used: "
              f"{sorted({l['rank'] for l in four})})")
        plain = [l for l in two if "seed" not in l]
        differ = [l["sweep_run"] for l in plain if bench_hash(bench, l) != l["state_hash"]]
        if not plain or differ:
            failures.append(f"tessera-bench gives other hashes for runs {differ}")
        print(f"{len(plain)} runs: same hashes as tessera-bench alone")

        lines = sweep(mpiexec, 2, binary, os.path.join(sweeps, "failures.ini"), os.path.join(tmp, "fail.jsonl"))
        oks = [l["ok"] for l in lines]
        if oks != [True, False, False] or "substeps" not in lines[1]["error"] or "simd_width" not in lines[2]["error"]:
            failures.append(f"failures.ini: expected ok [True, False, False] with the reasons, got {oks} "
                            f"{[l['error'] for l in lines]}")
        print("failed runs reported: " + "; ".join(l["error"] for l in lines if not l["ok"]))

        bad = os.path.join(tmp, "bad.ini")
        with open(bad, "w") as f:
            f.write("scene = pile\ncount = lots\n")
        result = run(mpiexec + ["2", binary, bad])
        if result.returncode != 2 or "line 2: count needs integers" not in result.stderr:
            failures.append(f"bad description: exit {result.returncode}, stderr {result.stderr!r}")
    for f in failures:
        print("FAIL: " + f)
    if not failures:
        print("check_sweep: every check holds")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
