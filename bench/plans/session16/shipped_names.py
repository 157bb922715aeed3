"""Prints, space-separated, the entry point of every sm90 kernel the tuning table ships (any batch, either type)."""
import json
import sys

from iree_cutlass.plugin.kernels import config_from_dict
from iree_cutlass.plugin.select import TUNING_DIR


def main() -> int:
    entries = json.loads((TUNING_DIR / "h200.json").read_text())["entries"].values()
    configs = [config_from_dict(entry["config"]) for entry in entries]
    print(" ".join(sorted({c.name for c in configs if c.family == "sm90"})))
    return 0


if __name__ == "__main__":
    sys.exit(main())
