#!/usr/bin/env python3
"""tessera-split under MPI (ctest mpi_split; docs/distributed.md).

Checks, on the pile of N = 1000 bodies:
- two ranks (one slab each, ghosts exchanged every step) pass the pile's
  quality check after 600 steps, every body is owned by exactly one rank at
  the end (tessera-split reports an error otherwise), no rank received a
  record for a body it owns, bodies did cross the boundary (migrations > 0),
  bytes were exchanged, and no two spheres overlap by 5 cm or more (measured:
  one rank 0.8 cm, two ranks 0.7 cm; with the ghosts left out, --margin 0.1,
  15 cm: this is what catches a boundary that does not push back);
- one rank is tessera-bench's world: the same state hash (120 steps);
- three ranks (a middle slab with two neighbours) give the same hash with 1
  and with 2 threads each, every body owned once, no conflict (120 steps);
- kinematic ghosts run too (120 steps, every body owned once);
- bad input stops every rank with a message: a scene with joints, slabs
  narrower than the margin.
Short runs keep it to seconds: a split run waits for its slowest rank every
step, so on two busy cores it slows down more than a one-process run.

usage: check_split.py TESSERA_SPLIT TESSERA_BENCH MPIEXEC [MPIEXEC FLAGS...]
"""
import json
import subprocess
import sys


def run(command):
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def split(mpiexec, ranks, binary, *args):
    command = mpiexec + [str(ranks), binary, "--count", "1000", "--json"] + list(args)
    result = run(command)
    if result.returncode != 0:
        raise SystemExit(f"FAIL: {' '.join(command)} exited {result.returncode}: {result.stderr}{result.stdout}")
    return json.loads(result.stdout)


def main():
    binary, bench = sys.argv[1], sys.argv[2]
    mpiexec = sys.argv[3:]
    failures = []

    two = split(mpiexec, 2, binary, "--threads", "1")
    extra = two["extra"]
    print(f"2 ranks: {two['quality_detail']}; deepest sphere overlap {two['deepest_sphere_overlap']:.4f} m; "
          f"{extra['bytes_per_step']:.0f} bytes a step, {extra['migrations']:.0f} migrations; "
          f"{two['ms_mean']:.3f} ms a step")
    if two["quality_pass"] is not True:
        failures.append("2 ranks: the pile check fails: " + two["quality_detail"])
    if two["error"] or sum(two["owned"]) != 1000 or extra["conflicts"] != 0:
        failures.append(f"2 ranks: error '{two['error']}', owned {two['owned']}, conflicts {extra['conflicts']}")
    if extra["migrations"] <= 0 or extra["bytes_per_step"] <= 0:
        failures.append("2 ranks: no body crossed the boundary, or nothing was exchanged")
    if not two["deepest_sphere_overlap"] < 0.05:
        failures.append(f"2 ranks: spheres overlap by {two['deepest_sphere_overlap']} m")

    short = ["--steps", "120"]
    one = split(mpiexec, 1, binary, "--threads", "1", *short)
    alone = json.loads(run([bench, "--scene", "pile", "--count", "1000", "--threads", "1", "--no-quality", "--json"]
                           + short).stdout)
    if one["state_hash"] != alone["state_hash"]:
        failures.append(f"1 rank: hash {one['state_hash']}, tessera-bench {alone['state_hash']}")

    three = [split(mpiexec, 3, binary, "--threads", t, *short) for t in ("1", "2")]
    kinematic = split(mpiexec, 2, binary, "--threads", "1", "--ghosts", "kinematic", *short)
    if three[0]["state_hash"] != three[1]["state_hash"]:
        failures.append(f"3 ranks: 2 threads give {three[1]['state_hash']}, 1 thread {three[0]['state_hash']}")
    for name, line in (("3 ranks", three[0]), ("kinematic ghosts", kinematic)):
        if line["error"] or sum(line["owned"]) != 1000 or line["extra"]["conflicts"] != 0:
            failures.append(f"{name}: error '{line['error']}', owned {line['owned']}")

    for args, message in ((["--scene", "joint_grid", "--side", "4"], "a split world takes scenes without joints"),
                          (["--count", "1000", "--margin", "5"], "use fewer ranks or a smaller --margin")):
        result = run(mpiexec + ["3", binary] + args)
        if result.returncode == 0 or message not in result.stderr:
            failures.append(f"{args}: exit {result.returncode}, stderr {result.stderr!r}")

    for f in failures:
        print("FAIL: " + f)
    if not failures:
        print("check_split: every check holds")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
