"""Summarizes Nsight Compute's per-instruction SASS page (`ncu -i REP --page source --csv --print-source sass`, of
a report taken with `--set full`): where a kernel's instructions and warp stall samples go.

    python3 bench/sass_profile.py ours.sass.csv[.gz] [cudnn.sass.csv.gz ...] [--blocks 12]

For each file: the stall reasons' shares of all samples, instructions executed by opcode (the part before the
first dot), and the heaviest straight-line blocks (runs of consecutive instructions executed equally often) by
instructions, each with its share of instructions and samples and its commonest opcodes. bench/plans/session38/
call_sass.sh writes such files; session 38 read the consumers' per-tile decode out of them this way.
"""
from __future__ import annotations

import argparse
import collections
import csv
import gzip
import io
import pathlib
import sys

SAMPLES = "Warp Stall Sampling (All Samples)"
EXECUTED = "Instructions Executed"


def read_rows(path: pathlib.Path) -> list[dict]:
    """The instruction rows of one kernel's SASS page (the first line names the kernel, the second the columns)."""
    raw = path.read_bytes()
    text = gzip.decompress(raw).decode() if path.suffix == ".gz" else raw.decode()
    lines = list(csv.reader(io.StringIO(text)))
    header = next(i for i, line in enumerate(lines) if "Address" in line and "Source" in line)
    columns = lines[header]
    return [dict(zip(columns, line)) for line in lines[header + 1:] if len(line) == len(columns)]


def number(row: dict, column: str) -> float:
    value = row.get(column, "")
    return float(value.replace(",", "")) if value not in ("", "-") else 0.0


def instruction_opcode(instruction: str) -> str:
    """An instruction's opcode without modifiers or predicate (`@!P1 BRA ...` -> BRA, `IMAD.HI.U32 R2, ...` ->
    IMAD); also for cuobjdump's SASS text (kernel_variants.py `sass`)."""
    words = instruction.split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return words[0].split(".")[0] if words else "?"


def opcode(row: dict) -> str:
    return instruction_opcode(row["Source"])


def blocks(rows: list[dict]) -> list[list[dict]]:
    """Runs of consecutive instructions with the same executed count: straight-line code, executed together."""
    runs: list[list[dict]] = []
    for row in rows:
        if runs and number(runs[-1][0], EXECUTED) == number(row, EXECUTED):
            runs[-1].append(row)
        else:
            runs.append([row])
    return runs


def summary(rows: list[dict], top: int) -> list[str]:
    samples = sum(number(r, SAMPLES) for r in rows) or 1.0
    executed = sum(number(r, EXECUTED) for r in rows) or 1.0
    stalls = collections.Counter()
    by_opcode = collections.Counter()
    for row in rows:
        by_opcode[opcode(row)] += number(row, EXECUTED)
        for column in row:
            if column.startswith("stall_") and "Not Issued" not in column:
                stalls[column[len("stall_"):]] += number(row, column)
    lines = [f"{len(rows)} instructions, {executed:.0f} executed, {samples:.0f} samples",
             "stalls: " + ", ".join(f"{k} {v / samples:.1%}" for k, v in stalls.most_common(8)),
             "opcodes: " + ", ".join(f"{k} {v:.0f}" for k, v in by_opcode.most_common(16))]
    heaviest = sorted(blocks(rows), key=lambda b: -number(b[0], EXECUTED) * len(b))[:top]
    for block in sorted(heaviest, key=lambda b: int(b[0]["Address"], 16)):
        count = number(block[0], EXECUTED)
        ops = collections.Counter(opcode(r) for r in block).most_common(5)
        lines.append(f"  {block[0]['Address']}: {len(block):4d} x {count:9.0f} = {count * len(block) / executed:5.1%} "
                     f"of instructions, {sum(number(r, SAMPLES) for r in block) / samples:5.1%} of samples; "
                     + " ".join(f"{k} {v}" for k, v in ops))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", type=pathlib.Path, nargs="+", metavar="SASS_CSV")
    parser.add_argument("--blocks", type=int, default=12, help="heaviest straight-line blocks to list")
    args = parser.parse_args(argv)
    for path in args.files:
        try:
            rows = read_rows(path)
        except (OSError, StopIteration, UnicodeDecodeError, gzip.BadGzipFile) as error:
            print(f"sass_profile: error: {path}: not a SASS page ({type(error).__name__})", file=sys.stderr)
            return 1
        print(f"== {path.name}")
        print("\n".join(summary(rows, args.blocks)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
