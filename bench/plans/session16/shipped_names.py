"""Prints, space-separated, the entry point of every sm90 kernel the tuning table ships (any batch, either type)."""
import json
import pathlib
import sys

from iree_cutlass.plugin import sm90

TABLE = pathlib.Path(__file__).resolve().parents[3] / "plugin" / "tuning" / "h200.json"


def main() -> int:
    names = set()
    for entry in json.loads(TABLE.read_text())["entries"].values():
        config = dict(entry["config"])
        if config.pop("family") == "sm90":
            names.add(sm90.Sm90Config(**config).name)
    print(" ".join(sorted(names)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
