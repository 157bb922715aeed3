"""The measure journal: a candidate that hangs, crashes its process or poisons the CUDA context costs only itself
(iree_cutlass.measure_journal; the GPU side is iree-cutlass-tune measure, run through the device tool)."""

import faulthandler
import json
import subprocess
import sys
import textwrap

import pytest

from iree_cutlass.measure_journal import DIED, RESTART_EXIT, Journal, marker_path, supervise

HEADER = {"arch": "sm_90", "commit": "abc", "timing": "graph"}


@pytest.fixture(autouse=True)
def no_watchdog_left_armed():
    # Journal.begin arms faulthandler's watchdog in this process; a test that leaves a candidate "in flight" must
    # not leave it armed, or it would end the whole pytest run limit_s later (exit 1, output lost).
    yield
    faulthandler.cancel_dump_traceback_later()
PROBLEM = {"n": 1}


def test_a_resumed_journal_records_the_candidate_in_flight_as_failed_and_keeps_the_rest(tmp_path):
    path = tmp_path / "results.json"
    journal = Journal(path, HEADER, resume=False, limit_s=600)
    row = journal.row("p1", PROBLEM)
    journal.begin(row, {"entry": "k1"})
    journal.end(row, {"entry": "k1", "valid": True, "ms": 0.5})
    journal.begin(row, {"entry": "k2", "config": {"tile_m": 128}})
    # The process dies here: the marker names k2, and the results hold k1.
    assert json.loads(marker_path(path).read_text())["outcome"]["entry"] == "k2"
    assert [c["entry"] for c in json.loads(path.read_text())["problems"][0]["candidates"]] == ["k1"]

    resumed = Journal(path, HEADER, resume=True, limit_s=600)
    row = resumed.row("p1", PROBLEM)
    assert row["candidates"] == [{"entry": "k1", "valid": True, "ms": 0.5},
                                 {"entry": "k2", "config": {"tile_m": 128}, "valid": False, "error": DIED}]
    assert resumed.recorded(row, {"entry": "k2"}) and not resumed.recorded(row, {"entry": "k3"})
    assert not resumed.recorded(row, {"entry": "k1", "variant": "no_store"})
    assert not marker_path(path).exists()
    # cuDNN in flight: its error, not a candidate.
    resumed.begin(row, None)
    again = Journal(path, HEADER, resume=True, limit_s=600)
    assert again.row("p1", PROBLEM)["cudnn_error"] == DIED and again.recorded(again.row("p1", PROBLEM), None)


def test_a_fresh_journal_starts_over_and_another_runs_results_are_not_resumed(tmp_path):
    path = tmp_path / "results.json"
    journal = Journal(path, HEADER, resume=False, limit_s=600)
    journal.end(journal.row("p1", PROBLEM), {"entry": "k1", "valid": True})
    journal.begin(journal.row("p1", PROBLEM), {"entry": "k2"})
    fresh = Journal(path, HEADER, resume=False, limit_s=600)
    assert json.loads(path.read_text())["problems"] == [] == fresh.document["problems"]
    assert not marker_path(path).exists()
    with pytest.raises(ValueError, match="another run"):
        Journal(path, {**HEADER, "commit": "def"}, resume=True, limit_s=600)


# A stand-in for the measuring process: three candidates, of which "hangs" sleeps past the limit (the first time),
# "poisons" asks for a fresh process after recording its error, and "fine" is fine.
WORKER = textwrap.dedent("""
    import pathlib, sys, time
    from iree_cutlass.measure_journal import RESTART_EXIT, Journal
    path = pathlib.Path(sys.argv[1])
    journal = Journal(path, {"commit": "abc"}, resume="--resume" in sys.argv, limit_s=1.0)
    row = journal.row("p1", {"n": 1})
    for entry in ("hangs", "poisons", "fine"):
        outcome = {"entry": entry}
        if journal.recorded(row, outcome):
            continue
        journal.begin(row, outcome)
        if entry == "hangs":
            time.sleep(30)
        if entry == "poisons":
            journal.end(row, {**outcome, "valid": False, "error": "cudaErrorIllegalAddress"})
            sys.exit(RESTART_EXIT)
        journal.end(row, {**outcome, "valid": True})
""")


def test_supervise_restarts_past_a_hang_and_a_poisoned_context(tmp_path):
    path = tmp_path / "results.json"
    worker = tmp_path / "worker.py"
    worker.write_text(WORKER)
    code = supervise([sys.executable, str(worker), str(path)], path)
    assert code == 0
    candidates = json.loads(path.read_text())["problems"][0]["candidates"]
    assert [(c["entry"], c["valid"], c.get("error")) for c in candidates] == [
        ("hangs", False, DIED), ("poisons", False, "cudaErrorIllegalAddress"), ("fine", True, None)]
    assert not marker_path(path).exists()


def test_supervise_stops_on_an_error_outside_any_candidate(tmp_path):
    path = tmp_path / "results.json"
    worker = tmp_path / "worker.py"
    worker.write_text("import sys; sys.exit(3)\n")
    assert supervise([sys.executable, str(worker), str(path)], path) == 3
    assert RESTART_EXIT != 3


def test_measure_without_a_plan_is_a_one_line_error(tmp_path):
    # The supervisor passes the worker's status through: a missing plan is the worker's one-line error, exit 1.
    result = subprocess.run([sys.executable, "-m", "iree_cutlass.tune", "measure", "--plan", str(tmp_path / "none"),
                             "--out", str(tmp_path / "r.json")], capture_output=True, text=True)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr, result.stderr


def test_measure_into_a_missing_directory_is_a_one_line_error(tmp_path):
    (tmp_path / "plan.json").write_text(json.dumps({"arch": "sm_90", "problems": []}))
    result = subprocess.run([sys.executable, "-m", "iree_cutlass.tune", "measure", "--plan", str(tmp_path),
                             "--out", str(tmp_path / "no" / "r.json")], capture_output=True, text=True)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "error: no directory" in result.stderr


def test_measure_without_cupy_is_a_one_line_error(tmp_path):
    pytest.importorskip("numpy")
    try:
        import cupy  # noqa: F401
        pytest.skip("CuPy is installed here: measure would run")
    except ImportError:
        pass
    (tmp_path / "plan.json").write_text(json.dumps({"arch": "sm_90", "problems": []}))
    result = subprocess.run([sys.executable, "-m", "iree_cutlass.tune", "measure", "--plan", str(tmp_path),
                             "--out", str(tmp_path / "r.json")], capture_output=True, text=True)
    assert result.returncode == 1
    errors = [line for line in result.stderr.splitlines() if "error" in line]
    assert len(errors) == 1 and errors[0].startswith("iree-cutlass-tune: error: measure needs CuPy"), result.stderr
    assert "Traceback" not in result.stderr, result.stderr


# A stand-in for CuPy on the CPU (numpy underneath), so that measure's worker runs here as it runs on the GPU: each
# fake fatbin says what its kernel does (writes the right dx, writes a wrong one, hangs, or faults and leaves the
# context unusable, as an illegal address does).
FAKE_CUPY = textwrap.dedent('''
    import json, sys, time, types
    import numpy
    from numpy import *  # noqa: F401,F403 - the array functions measure uses
    from numpy import linalg  # noqa: F401
    from iree_cutlass.reference import dgrad_reference

    _dead = []

    def _check_alive():
        if _dead:
            raise RuntimeError("cudaErrorIllegalAddress: an illegal memory access was encountered")

    class _Device:
        def synchronize(self):
            _check_alive()

    class _Event:
        def record(self):
            _check_alive()
        def synchronize(self):
            pass

    def _arange(*args, **kwargs):
        _check_alive()
        return numpy.arange(*args, **kwargs)
    arange = _arange

    cuda = types.SimpleNamespace(
        Device=_Device, Event=_Event, get_elapsed_time=lambda start, end: 0.25,
        runtime=types.SimpleNamespace(getDeviceProperties=lambda i: {"name": b"Stand-in GPU"},
                                      driverGetVersion=lambda: 13000))

    class RawModule:
        def __init__(self, path):
            self.behaviour = json.loads(open(path).read())
        def get_function(self, entry):
            behaviour = self.behaviour
            def kernel(grid, block, args, shared_mem=0):
                _check_alive()
                dy, w, dx = args[:3]
                if behaviour["does"] == "hangs":
                    time.sleep(60)
                if behaviour["does"] == "faults":
                    _dead.append(True)
                    raise RuntimeError("cudaErrorIllegalAddress: an illegal memory access was encountered")
                ref = dgrad_reference(behaviour["problem"], dy.view(numpy.float16), w.view(numpy.float16))
                dx[...] = (ref if behaviour["does"] == "right" else 2 * ref).astype(numpy.float16).view(numpy.uint16)
            return _Function(kernel)

    class _Function:
        def __init__(self, kernel):
            self.kernel = kernel
            self.max_dynamic_shared_size_bytes = 0
        def __call__(self, *args, **kwargs):
            self.kernel(*args, **kwargs)
''')


def test_measure_worker_on_a_stand_in_gpu_records_each_candidate_and_survives_hangs_and_faults(tmp_path):
    problem = {"n": 2, "h": 5, "w": 6, "c": 8, "k": 16, "r": 3, "s": 3, "p": 5, "q": 6, "pad_h": 1, "pad_w": 1,
               "stride_h": 1, "stride_w": 1, "dtype": "f16"}
    plan_dir = tmp_path / "plan"
    (plan_dir / "kernels").mkdir(parents=True)
    candidates = []
    for entry, does in [("k_right", "right"), ("k_hangs", "hangs"), ("k_wrong", "wrong"), ("k_faults", "faults"),
                        ("k_right_too", "right")]:
        (plan_dir / "kernels" / f"{entry}.fatbin").write_text(json.dumps({"does": does, "problem": problem}))
        candidates.append({"config": {"name": entry}, "entry": entry, "fatbin": f"{entry}.fatbin", "grid": [1, 1, 1],
                           "block": [128, 1, 1], "smem_bytes": 0, "constants": [], "filter_layout": "krsc"})
    plan = {"arch": "sm_90", "commit": "abc", "dirty": False,
            "problems": [{"key": "p1", "problem": problem, "candidates": candidates}]}
    (plan_dir / "plan.json").write_text(json.dumps(plan))
    fake = tmp_path / "fake" / "cupy"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text(FAKE_CUPY)
    import os
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "fake"), os.environ.get("PYTHONPATH", "")])}
    out = tmp_path / "results.json"
    result = subprocess.run([sys.executable, "-m", "iree_cutlass.tune", "measure", "--plan", str(plan_dir),
                             "--out", str(out), "--hang-s", "3", "--rounds", "3", "--calls", "2"],
                            capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    results = json.loads(out.read_text())
    assert results["card"] == "Stand-in GPU" and results["timing"] == "loop"
    outcomes = {c["entry"]: c for c in results["problems"][0]["candidates"]}
    assert list(outcomes) == ["k_right", "k_hangs", "k_wrong", "k_faults", "k_right_too"]
    assert outcomes["k_right"]["valid"] and outcomes["k_right"]["ms"] == 0.25 / 2   # a loop of --calls 2
    assert outcomes["k_right"]["rel_l2"] < 1e-3 and outcomes["k_right"]["unwritten"] == 0
    assert not outcomes["k_hangs"]["valid"] and outcomes["k_hangs"]["error"] == DIED
    assert not outcomes["k_wrong"]["valid"] and 0.9 < outcomes["k_wrong"]["rel_l2"] < 1.1
    assert not outcomes["k_faults"]["valid"] and "IllegalAddress" in outcomes["k_faults"]["error"]
    assert outcomes["k_right_too"]["valid"]   # measured in a fresh process after the fault
    assert "restart 2" in result.stderr and "restart 3" not in result.stderr
    # --check-only times nothing; a table made from it has nothing to choose by.
    checked = tmp_path / "checked.json"
    result = subprocess.run([sys.executable, "-m", "iree_cutlass.tune", "measure", "--plan", str(plan_dir),
                             "--out", str(checked), "--hang-s", "3", "--check-only", "--skip", "k_hangs", "k_faults"],
                            capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    outcomes = json.loads(checked.read_text())["problems"][0]["candidates"]
    assert [(c["entry"], c["valid"], "ms" in c) for c in outcomes] == [
        ("k_right", True, False), ("k_wrong", False, False), ("k_right_too", True, False)]
