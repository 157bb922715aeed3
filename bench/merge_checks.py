"""Merges GPU-check results of one bundle taken in several calls (gpu_check.py --only ...) into one result file.

    python3 bench/merge_checks.py part1.json part2.json --out bench/results/..._check.json

Every row keeps the timings of the call it was measured in (ours and its peers side by side, so every per-layer
ratio is still a same-run ratio); the geomeans are recomputed over all rows. The parts must come from the same
bundle commit and card; a case in several parts keeps its first row.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from gpu_check import summary  # noqa: E402
from iree_cutlass.cli.common import write_atomically  # noqa: E402  (gpu_check put python/ on the path)


def merge(parts: list[dict]) -> dict:
    first = parts[0]
    for part in parts[1:]:
        for key in ("commit", "dirty_tree", "card"):
            if part.get(key) != first.get(key):
                raise SystemExit(f"error: the parts differ in {key}: {first.get(key)!r} and {part.get(key)!r}")
    rows, repeated = {}, []
    for part in parts:
        for row in part["rows"]:
            if row["tag"] in rows:
                repeated.append(row["tag"])  # a case two parts' filters both took: the first part's row stands
            else:
                rows[row["tag"]] = row
    merged = {key: value for key, value in first.items() if not key.startswith("geomean_")}
    merged["rows"] = list(rows.values())
    merged["repeated_cases_dropped"] = repeated
    merged["parts"] = [{"cases": len(part["rows"]), "ceilings": part.get("ceilings"),
                        "complete": part.get("complete")} for part in parts]
    merged.pop("complete", None)   # a part's own flag: whether its call ran every case it was asked for
    merged.update(summary(merged["rows"]))
    return merged


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parts", type=pathlib.Path, nargs="+")
    parser.add_argument("--out", type=pathlib.Path, required=True)
    args = parser.parse_args()
    merged = merge([json.loads(path.read_text()) for path in args.parts])
    write_atomically(args.out, json.dumps(merged, indent=1).encode())
    print(f"merged {len(merged['rows'])} rows from {len(args.parts)} parts into {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
