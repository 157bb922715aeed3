"""Reads compute-sanitizer logs of bench/sanitize_kernels.py and says which kernels they show clean.

    python3 bench/sanitizer_logs.py --logs memcheck.txt racecheck.txt                  # a line per kernel
    python3 bench/sanitizer_logs.py --logs memcheck.txt racecheck.txt \\
        --unverified-in tune.json [more.json] --only _e1 _ts   # entry points for `iree-cutlass-tune table --skip`

A kernel is clean when every log has its launch line (`<entry> on <tag> unwritten=0`, printed after the launch
returned, so after the sanitizer reported on it) and no sanitizer line names it (memcheck's and racecheck's
reports name the kernel in their "at" / "in" lines). A log cut short by a time limit leaves the kernels it did not
reach unverified, not clean.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import sys

# An sm90_gemm kernel is built per problem: a run on any problem vouches for its code.
from iree_cutlass.plugin.kernels import kernel_code

ENTRY = re.compile(r"iree_cutlass_(?:dgrad|gemm)_[A-Za-z0-9_]+")
LAUNCH = re.compile(r"^(iree_cutlass_(?:dgrad|gemm)_[A-Za-z0-9_]+)\s+on\s+\S+\s+unwritten=(\d+)")


def read_log(text: str) -> tuple[set[str], set[str]]:
    """(kernels launched with every element written, kernels a sanitizer line names or left unwritten) of one
    log."""
    launched, flagged = set(), set()
    for line in text.splitlines():
        if line.startswith("========="):
            flagged.update(kernel_code(entry) for entry in ENTRY.findall(line))
        elif match := LAUNCH.match(line):
            (launched if match.group(2) == "0" else flagged).add(kernel_code(match.group(1)))
    return launched, flagged


def clean_kernels(texts: list[str]) -> tuple[set[str], set[str]]:
    """(clean in every log, named by a sanitizer line or left unwritten in any log)."""
    logs = [read_log(text) for text in texts]
    flagged = set().union(*(named for _, named in logs))
    clean = set.intersection(*(launched for launched, _ in logs)) - flagged if logs else set()
    return clean, flagged


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logs", type=pathlib.Path, nargs="+", required=True)
    parser.add_argument("--unverified-in", type=pathlib.Path, nargs="+", default=None, metavar="RESULTS",
                        help="print the candidates of these measure results that the logs do not show clean")
    parser.add_argument("--only", nargs="+", default=[""], metavar="SUBSTRING",
                        help="with --unverified-in: only candidates whose entry point contains one of these")
    args = parser.parse_args(argv)
    try:
        texts = [log.read_text(errors="replace") for log in args.logs]
        runs = [json.loads(path.read_text()) for path in args.unverified_in or []]
    except (OSError, ValueError) as error:
        print(f"sanitizer_logs: error: {error}", file=sys.stderr)
        return 1
    clean, flagged = clean_kernels(texts)
    if not runs:
        for entry in sorted(clean | flagged):
            print(f"{entry} {'flagged' if entry in flagged else 'clean'}")
        return 0
    entries = {c["entry"] for run in runs for row in run["problems"] for c in row["candidates"]}
    print(" ".join(sorted(e for e in entries if any(part in e for part in args.only) and kernel_code(e) not in clean)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
