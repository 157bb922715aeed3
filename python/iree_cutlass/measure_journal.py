"""A measuring run's results, kept so that a candidate kernel that hangs or wrecks the CUDA context costs that
candidate, not the run.

A measuring process (`iree-cutlass-tune measure`) writes its results file after every candidate, atomically, and
before each candidate a small in-flight marker beside it (`<results>.inflight`) naming what it is about to run. A
watchdog thread of the interpreter's own (faulthandler's, which needs no GIL: a process blocked in a CUDA call
still ends) exits the process when one item runs past its limit. The supervisor (`supervise`) starts the process
again with `--resume`; the new one records the marked item as failed, skips every item already recorded, and goes
on. A CUDA error that poisons the context (an illegal address) is recorded by the process itself, which then exits
with RESTART_EXIT for a fresh context.
"""

from __future__ import annotations

import faulthandler
import json
import pathlib
import subprocess
import sys

RESTART_EXIT = 75
DIED = "the measuring process hung or died while it ran (no result within the limit, or a crash); skipped"


def _write_atomically(path: pathlib.Path, text: str) -> None:
    from iree_cutlass.cli.common import write_atomically
    write_atomically(path, text.encode())


def marker_path(results: pathlib.Path) -> pathlib.Path:
    return results.with_name(results.name + ".inflight")


class Journal:
    """The results document of one measuring run: `document["problems"]` rows of `candidates` outcomes."""

    def __init__(self, path: pathlib.Path, header: dict, resume: bool, limit_s: float):
        self.path, self.marker, self.limit_s = path, marker_path(path), limit_s
        self.document = None
        if resume and path.is_file():
            self.document = json.loads(path.read_text())
            if any(self.document.get(k) != v for k, v in header.items() if k in ("commit", "timing", "arch")):
                raise ValueError(f"{path} holds another run's results (commit or timing differ); not resumed")
        if self.document is None:
            self.document = {**header, "problems": []}
        self._rows = {row["key"]: row for row in self.document["problems"]}
        if resume and self.marker.is_file():
            self._record_died(json.loads(self.marker.read_text()))
        self.marker.unlink(missing_ok=True)
        self.save()

    def _record_died(self, in_flight: dict) -> None:
        row = self.row(in_flight["key"], in_flight["problem"])
        if "outcome" in in_flight:
            row["candidates"].append({**in_flight["outcome"], "valid": False, "error": DIED})
        else:
            row["cudnn_error"] = DIED
        print(f"[journal] {in_flight['key']}: {in_flight.get('outcome', {}).get('entry', 'cuDNN')}: {DIED}",
              file=sys.stderr, flush=True)

    def row(self, key: str, problem: dict) -> dict:
        """The row of problem `key`, made (empty) on first use."""
        if key not in self._rows:
            self._rows[key] = {"key": key, "problem": problem, "candidates": []}
            self.document["problems"].append(self._rows[key])
        return self._rows[key]

    @staticmethod
    def recorded(row: dict, outcome: dict) -> bool:
        """Whether `row` already holds this candidate (entry and variant) or, for outcome None, cuDNN's figure."""
        if outcome is None:
            return "cudnn_ms" in row or "cudnn_error" in row
        return any(c["entry"] == outcome["entry"] and c.get("variant") == outcome.get("variant")
                   for c in row["candidates"])

    def begin(self, row: dict, outcome: dict | None) -> None:
        """About to run `outcome`'s candidate (None: cuDNN) of `row`: marked, and the watchdog armed."""
        in_flight = {"key": row["key"], "problem": row["problem"], **({"outcome": outcome} if outcome else {})}
        _write_atomically(self.marker, json.dumps(in_flight))
        faulthandler.dump_traceback_later(self.limit_s, exit=True)

    def end(self, row: dict, outcome: dict | None) -> None:
        """`outcome` (None: cuDNN's, already in `row`) is done: recorded, saved, the marker and watchdog gone."""
        faulthandler.cancel_dump_traceback_later()
        if outcome is not None:
            row["candidates"].append(outcome)
        self.save()
        self.marker.unlink(missing_ok=True)

    def save(self) -> None:
        _write_atomically(self.path, json.dumps(self.document, indent=1))


def supervise(command: list[str], results: pathlib.Path, max_restarts: int = 20) -> int:
    """Runs `command` (a measuring process writing `results`) and, while it stops with an item in flight or asks
    for a fresh context (RESTART_EXIT), runs it again with --resume. Returns the last exit status."""
    # The marker a killed run left stays for a --resume command to record (a fresh run removes it).
    marker = marker_path(results)
    code = subprocess.call(command)
    restarts = 0
    while code != 0 and (code == RESTART_EXIT or marker.is_file()) and restarts < max_restarts:
        restarts += 1
        print(f"[journal] measuring process stopped (exit {code}); restart {restarts} with --resume",
              file=sys.stderr, flush=True)
        code = subprocess.call([*command, "--resume"])
    return code
