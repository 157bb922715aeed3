"""iree-cutlass-tune: measure every candidate kernel per problem and keep the fastest in a tuning table.

Compile time needs no GPU: it reads the table the tuner wrote. Tuning splits where the tools are:

    iree-cutlass-tune build   --out tune/ [--batches 8 256] [--dtypes f16 bf16]   # nvcc: here (parallel)
    iree-cutlass-tune measure --plan tune/ --out tune/results.json [--with-cudnn]  # GPU (CuPy; torch for cuDNN)
    iree-cutlass-tune table   --results tune/results.json --card h200            # writes plugin/tuning/h200.json

`measure` checks each candidate before it times it (dx poisoned with NaN, every element written, relative L2
against a float64 reference under 1e-2); a candidate that fails is recorded and never chosen.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import math
import pathlib
import shutil
import sys
import time

from iree_cutlass.workloads import dgrad_problem, random_layers, resnet50_layers

REL_L2_LIMIT = 1e-2
ENTRY_PREFIX = "iree_cutlass_dgrad_"   # every kernel's entry point begins so
OTHER_DTYPE = {"f16": "bf16", "bf16": "f16"}   # --cross-dtype: the 16-bit type whose kernels a layer also tries


def timed_valid(candidate: dict) -> bool:
    """A candidate that ran validly and was timed as itself (not as a variant's run): what a table chooses from."""
    return bool(candidate.get("valid")) and "ms" in candidate and "variant" not in candidate


def names_any(entry: str, parts) -> bool:
    """Whether `entry` is named by any of `parts`: a whole entry point names that kernel alone (as a substring it
    would also name its suffixed relatives), anything else any entry point containing it."""
    return any(entry == part if part.startswith(ENTRY_PREFIX) else part in entry for part in parts)


def _say(message: str) -> None:
    print(f"[tune] {message}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------------- build


def build(args) -> int:
    from iree_cutlass.plugin.build import KernelBuildError, build_kernels
    from iree_cutlass.plugin.kernels import launch_record, runs_on, supports
    from iree_cutlass.plugin.select import candidate_configs, select_kernel

    if args.tables and (args.candidates != [""] or args.twins):
        print("iree-cutlass-tune: error: --tables chooses the candidates itself; drop --candidates and --twins",
              file=sys.stderr)
        return 2

    if args.configs_from and args.candidates == [""]:
        print("iree-cutlass-tune: error: --configs-from takes the kernels that --candidates names", file=sys.stderr)
        return 2
    pool = []   # --configs-from: the earlier plans' kernel configs, in order, once each
    for path in args.configs_from:
        try:
            pool += _plan_configs(path)
        except (OSError, ValueError, KeyError, TypeError) as error:
            print(f"iree-cutlass-tune: error: --configs-from {path}: not a readable plan ({error})", file=sys.stderr)
            return 2
    pool = list(dict.fromkeys(pool))

    layers = [layer for layer in random_layers(args.random, args.seed, args.channel_multiple)
              if layer.dtype in args.dtypes] if args.random else \
        resnet50_layers(tuple(args.batches), tuple(args.dtypes))
    problems = [dgrad_problem(layer) for layer in layers]
    problems = [p for p in problems if any(part in p.key() for part in args.only)]
    candidates = {problem: [c for c in candidate_configs(problem, args.arch, split_k=args.split_k)
                            if c.family in args.families]
                  for problem in problems}
    shipped_kernels = {problem: _shipped_kernel(problem, args.arch, args.card) for problem in problems}
    if args.sm80 == "selected":
        # Re-measure only the sm80 kernel the current table or heuristic picks, against every other candidate.
        for problem, configs in candidates.items():
            chosen = select_kernel(problem, card=args.card, arch=args.arch, families=("sm80",))
            candidates[problem] = [c for c in configs if c.family != "sm80" or c == chosen]
    if args.tables:
        # A re-tune of kernels that already won somewhere (another card's table, a candidate table): per problem
        # each table's kernel, and with --cross-dtype its kernel for the same layer in the other type.
        tables = [_table_entries(path) for path in args.tables]
        for problem in problems:
            picks = [config for entries in tables for config in _table_kernels(entries, problem, args.cross_dtype)]
            candidates[problem] = list(dict.fromkeys(
                c for c in picks
                if c.family in args.families and runs_on(c, args.arch) and supports(c, problem) is None))
    elif args.candidates != [""] or args.twins or args.cross_dtype:
        # Only the named candidates (none but the twins when --candidates is not given) and the shipped kernel's
        # twins, next to the kernel shipped today (the same-run baseline).
        named = [part for part in args.candidates if part] if args.candidates != [""] else []
        whole = [part for part in named if part.startswith(ENTRY_PREFIX)]   # named whole: kept despite --skip
        for problem, configs in candidates.items():
            shipped = shipped_kernels[problem]
            twins = [twin for field in args.twins if (twin := _twin(shipped, field)) is not None]
            if args.cross_dtype:
                twins.append(_sibling_kernel(problem, args.arch, args.card))
            chosen = [c for c in configs if c == shipped or c in twins or names_any(c.name, whole) or (
                names_any(c.name, named) and not names_any(c.name, args.skip))]
            # Twins off the candidate grid (fewer stages than fit, say) and the named kernels of --configs-from
            # plans are measured too where they compute the problem: the table takes any config that supports it.
            extra = twins + [c for c in pool if names_any(c.name, whole) or (
                names_any(c.name, named) and not names_any(c.name, args.skip))]
            candidates[problem] = chosen + list(dict.fromkeys(
                c for c in extra if c not in chosen and c.family in args.families and runs_on(c, args.arch)
                and supports(c, problem) is None))
    for problem, configs in candidates.items():
        # The kernel shipped today is measured whatever --families names (e.g. an sm90_gemm kernel shipped for a
        # problem whose new candidates are sm90 ones): the table compares only within one run.
        shipped = shipped_kernels[problem]
        if shipped is not None and shipped not in configs:
            configs.insert(0, shipped)
    configs = list(dict.fromkeys(c for cs in candidates.values() for c in cs))
    _say(f"{len(problems)} problems, {len(configs)} distinct candidate kernels to build for {args.arch}")
    try:
        built = dict(zip(configs, build_kernels(configs, arch=args.arch, jobs=args.jobs)))
    except KernelBuildError as error:
        print(f"iree-cutlass-tune: error: {error}", file=sys.stderr)
        return 1
    kernels_dir = args.out / "kernels"
    kernels_dir.mkdir(parents=True, exist_ok=True)
    for kernel in built.values():
        shutil.copyfile(kernel.path, kernels_dir / kernel.path.name)
    plan = {"arch": args.arch, **_source_state(), "problems": []}
    for problem, configs_for_problem in candidates.items():
        plan["problems"].append({"key": problem.key(), "problem": dataclasses.asdict(problem), "candidates": [
            {**launch_record(config, problem), "fatbin": built[config].path.name} for config in configs_for_problem]})
    (args.out / "plan.json").write_text(json.dumps(plan, indent=1))
    _say(f"wrote {args.out / 'plan.json'}")
    return 0


def _plan_configs(path: pathlib.Path) -> list:
    """The kernel configs of an earlier plan's candidates (a plan.json), in order."""
    from iree_cutlass.plugin.kernels import config_from_dict
    return [config_from_dict(c["config"]) for p in json.loads(path.read_text())["problems"] for c in p["candidates"]]


def _shipped_kernel(problem, arch: str, card: str):
    """The kernel the table or heuristic ships for `problem` today, or None where nothing computes it (some random
    problems): the same-run baseline of a plan."""
    from iree_cutlass.plugin.select import NoKernel, select_kernel
    try:
        return select_kernel(problem, card=card, arch=arch)
    except NoKernel:
        return None


def _table_entries(path: pathlib.Path) -> dict:
    """The entries of a tuning table (plugin/tuning/<card>.json's format)."""
    from iree_cutlass.plugin.select import _load_table
    return _load_table(path.resolve())


def _table_kernels(entries: dict, problem, cross_dtype: bool) -> list:
    """The table's kernel for `problem`, and with `cross_dtype` its kernel for the same layer in the other 16-bit
    type, built for `problem`'s type."""
    from iree_cutlass.plugin.kernels import config_from_dict
    kernels = []
    if problem.key() in entries:
        kernels.append(config_from_dict(entries[problem.key()]["config"]))
    other = OTHER_DTYPE.get(problem.dtype)
    sibling_key = dataclasses.replace(problem, dtype=other).key() if cross_dtype and other else None
    if sibling_key in entries:
        kernels.append(dataclasses.replace(config_from_dict(entries[sibling_key]["config"]), dtype=problem.dtype))
    return kernels


def _twin(config, spec: str):
    """`config` with one field changed by `spec` (FIELD: a boolean field set; FIELD=N: an integer field set to N),
    or None where its family has no such field, it has that value already (the config itself is measured anyway)
    or the config's own checks refuse the result."""
    from iree_cutlass.plugin.sm90 import twin
    field, _, value = spec.partition("=")
    return twin(config, **{field: int(value) if value else True}) if hasattr(config, field) else None


def _twin_spec(spec: str) -> str:
    """argparse type of --twins: FIELD names a boolean field of a kernel config, FIELD=N an integer one."""
    from iree_cutlass.plugin import sm80, sm90, sm90_gemm
    field, equals, value = spec.partition("=")
    kinds = {f.name: f.type for cls in (sm80.Sm80Config, sm90.Sm90Config, sm90_gemm.Sm90GemmConfig)
             for f in dataclasses.fields(cls)}
    wanted = (int, "int") if equals else (bool, "bool")   # a field's type, or its name under postponed annotations
    if kinds.get(field) not in wanted:
        raise argparse.ArgumentTypeError(
            f"{spec!r}: not a {'FIELD=N of an integer' if equals else 'boolean'} kernel config field")
    if equals and not value.isdigit():
        raise argparse.ArgumentTypeError(f"{spec!r}: N must be a non-negative integer")
    return spec


def _sibling_kernel(problem, arch: str, card: str):
    """The kernel the table ships for `problem` in the other 16-bit type, built for `problem`'s own type: the
    two types run at the same rates, so a kernel that won one of them is a candidate for the other (their tunes
    were separate runs, and picked different kernels on close calls)."""
    from iree_cutlass.plugin.select import select_kernel
    other = OTHER_DTYPE[problem.dtype]
    sibling = select_kernel(dataclasses.replace(problem, dtype=other), card=card, arch=arch)
    return dataclasses.replace(sibling, dtype=problem.dtype)


def _source_state() -> dict:
    """The commit the kernels were generated from, and whether the tree had uncommitted changes."""
    import subprocess
    root = pathlib.Path(__file__).resolve().parents[2]
    run = lambda *cmd: subprocess.run(cmd, cwd=root, capture_output=True, text=True).stdout.strip()
    return {"commit": run("git", "rev-parse", "HEAD") or "unknown",
            "dirty": bool(run("git", "status", "--porcelain", "--untracked-files=no"))}


# ------------------------------------------------------------------------------------------------- measure


def _inputs(problem: dict, rng):
    """Random dy and w_krsc on the host in the problem's dtype, as uint16 bit patterns and float64."""
    import numpy as np
    if problem["dtype"] == "bf16":
        import ml_dtypes
        dtype = ml_dtypes.bfloat16
    else:
        dtype = np.float16
    dy = rng.standard_normal((problem["n"], problem["p"], problem["q"], problem["k"]), dtype=np.float32).astype(dtype)
    w = rng.standard_normal((problem["k"], problem["r"], problem["s"], problem["c"]), dtype=np.float32).astype(dtype)
    return dy, w


def _cudnn_ms(problem: dict, dy, w_krsc, graph: bool = False) -> float:
    import torch
    torch.backends.cudnn.benchmark = True
    tdtype = {"f16": torch.float16, "bf16": torch.bfloat16}[problem["dtype"]]
    to_cl = lambda a, perm: torch.from_numpy(a.astype("float32")).to(tdtype).cuda().permute(*perm) \
        .contiguous(memory_format=torch.channels_last)
    dy_t, w_t = to_cl(dy, (0, 3, 1, 2)), to_cl(w_krsc, (0, 3, 1, 2))  # NPQK -> NKPQ, KRSC -> KCRS
    x_t = torch.empty((problem["n"], problem["c"], problem["h"], problem["w"]), dtype=tdtype, device="cuda") \
        .contiguous(memory_format=torch.channels_last)
    stride, pad = [problem["stride_h"], problem["stride_w"]], [problem["pad_h"], problem["pad_w"]]

    def run():
        torch.ops.aten.convolution_backward(dy_t, x_t, w_t, None, stride, pad, [1, 1], False, [0, 0], 1,
                                            [True, False, False])
    if graph:
        from iree_cutlass.timing import torch_graph_ms
        return torch_graph_ms(torch, run)
    for _ in range(3):
        run()
    torch.cuda.synchronize()
    times = []
    for _ in range(7):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(20):
            run()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 20)
    return sorted(times)[len(times) // 2]


def measure(args) -> int:
    """Runs the measuring process under a supervisor (iree_cutlass.measure_journal): a candidate that hangs or
    poisons the CUDA context is recorded as failed, and the run goes on in a fresh process."""
    if not (args.plan / "plan.json").is_file():
        print(f"iree-cutlass-tune: error: no plan.json in {args.plan} (make one with iree-cutlass-tune build)",
              file=sys.stderr)
        return 1
    if not args.out.parent.is_dir():
        print(f"iree-cutlass-tune: error: no directory {args.out.parent} for the results", file=sys.stderr)
        return 1
    if args.worker:
        return _measure_worker(args)
    from iree_cutlass.measure_journal import supervise
    command = [sys.executable, "-m", "iree_cutlass.tune", *args.argv, "--worker"]
    return supervise(command, args.out)


def _context_alive(cp) -> bool:
    """False once a kernel has left the CUDA context unusable (an illegal address is sticky)."""
    try:
        cp.cuda.Device().synchronize()
        return int((cp.arange(4) + 1).sum()) == 10
    except Exception:  # noqa: BLE001 - any failure here means the context is gone
        return False


def _measure_worker(args) -> int:
    try:
        import cupy as cp
    except ImportError:
        print("iree-cutlass-tune: error: measure needs CuPy (cupy-cuda12x or cupy-cuda13x) and a CUDA GPU",
              file=sys.stderr)
        return 1
    import numpy as np
    from iree_cutlass.kernel_launch import KernelLauncher, as_float64, filter_in_layout, poisoned_output
    from iree_cutlass.measure_journal import RESTART_EXIT, Journal
    from iree_cutlass.reference import dgrad_reference

    plan = json.loads((args.plan / "plan.json").read_text())
    problems = [p for p in plan["problems"] if p["problem"]["dtype"] in args.dtypes]
    header = {"arch": plan["arch"], "commit": plan.get("commit"), "dirty": plan.get("dirty"),
              "card": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
              "driver": cp.cuda.runtime.driverGetVersion(), "measured": datetime.date.today().isoformat(),
              "timing": "check only" if args.check_only else "graph" if args.graph else "loop"}
    try:
        journal = Journal(args.out, header, resume=args.resume, limit_s=args.hang_s)
    except ValueError as error:
        print(f"iree-cutlass-tune: error: {error}", file=sys.stderr)
        return 1
    for index, entry in enumerate(problems, 1):
        problem = entry["problem"]
        row = journal.row(entry["key"], problem)
        # A candidate has the entry (and variant) a recorded outcome is known by.
        pending = [c for c in entry["candidates"]
                   if not names_any(c["entry"], args.skip) and not journal.recorded(row, c)]
        cudnn_pending = args.with_cudnn and not journal.recorded(row, None)
        if not pending and not cudnn_pending:
            continue
        # Each problem's inputs from its own seed, so that a resumed run draws the same ones.
        dy, w_krsc = _inputs(problem, np.random.default_rng([args.seed, index]))
        dy_d = cp.asarray(dy.view(np.uint16))
        filters = {layout: cp.asarray(filter_in_layout(w_krsc, layout).view(np.uint16)) for layout in ("krsc", "rsck")}
        reference = dgrad_reference(problem, cp.asarray(dy.astype(np.float64)),
                                    cp.asarray(w_krsc.astype(np.float64)), xp=cp)
        reference_norm = float(cp.linalg.norm(reference))
        dx_shape = (problem["n"], problem["h"], problem["w"], problem["c"])
        for candidate in pending:
            # A "variant" is a launch of a kernel other than the one its config implies (a comparison, never chosen).
            outcome = {"config": candidate["config"], "entry": candidate["entry"],
                       **({"variant": candidate["variant"]} if "variant" in candidate else {})}
            journal.begin(row, outcome)
            try:
                launcher = KernelLauncher(args.plan / "kernels" / candidate["fatbin"], candidate)
                w_d = filters[launcher.filter_layout]
                dx_d = poisoned_output(dx_shape, problem["dtype"])
                launcher.launch(dy_d, w_d, dx_d)
                cp.cuda.Device().synchronize()
                dx = as_float64(dx_d, problem["dtype"])
                outcome["unwritten"] = int(cp.count_nonzero(~cp.isfinite(dx)))
                outcome["rel_l2"] = float(cp.linalg.norm(cp.nan_to_num(dx) - reference)) / reference_norm
                outcome["valid"] = outcome["unwritten"] == 0 and outcome["rel_l2"] <= REL_L2_LIMIT
                if outcome["valid"] and not args.check_only:
                    timer = launcher.graph_time_ms if args.graph else launcher.time_ms
                    outcome["ms"] = timer(dy_d, w_d, dx_d, rounds=args.rounds, calls=args.calls)
            except Exception as error:  # noqa: BLE001 - a candidate that cannot run is recorded, not chosen
                outcome["valid"] = False
                outcome["error"] = f"{type(error).__name__}: {str(error).splitlines()[0][:200]}"
            journal.end(row, outcome)
            if "error" in outcome and not _context_alive(cp):
                _say(f"{entry['key']}: {outcome['entry']} left the CUDA context unusable; going on in a new process")
                return RESTART_EXIT
        if cudnn_pending:
            journal.begin(row, None)
            try:
                row["cudnn_ms"] = _cudnn_ms(problem, dy, w_krsc, graph=args.graph)
            except Exception as error:  # noqa: BLE001 - the candidates' timings stand without cuDNN's
                row["cudnn_error"] = f"{type(error).__name__}: {str(error).splitlines()[0][:200]}"
            journal.end(row, None)
        valid = [c for c in row["candidates"] if c.get("valid")]
        timed = [c for c in valid if "ms" in c]
        best = min(timed, key=lambda c: c["ms"]) if timed else None
        _say(f"{index}/{len(problems)} {entry['key']}: {len(valid)}/{len(row['candidates'])} valid"
             + (f", best {best['entry']} {best['ms']:.4f} ms" if best else "")
             + (f", cuDNN {row['cudnn_ms']:.4f} ms" if 'cudnn_ms' in row else ""))
    return 0


# --------------------------------------------------------------------------------------------------- table


def table(args) -> int:
    runs = [json.loads(path.read_text()) for path in args.results]
    run_files = {id(run): path.name for run, path in zip(runs, args.results)}
    cards = {run["card"] for run in runs}
    if len(cards) > 1:
        print(f"iree-cutlass-tune: error: the results come from different cards ({', '.join(sorted(cards))}); "
              "a table holds one card's measurements", file=sys.stderr)
        return 1
    from iree_cutlass.plugin.kernels import config_from_dict, kernel_code
    from iree_cutlass.plugin.select import TUNING_DIR
    path = args.out or TUNING_DIR / f"{args.card}.json"
    existing = json.loads(path.read_text()) if path.is_file() else {}
    entries = dict(existing.get("entries", {}))
    # --valid-in: each file's verdict per kernel code (kernel_code: an sm90_gemm kernel is built per problem, and
    # its runs on other problems vouch for its code); a kernel with any invalid run there is never chosen.
    checked: dict[str, bool] = {}
    for other in args.valid_in:
        for row in json.loads(other.read_text())["problems"]:
            for c in row["candidates"]:
                code = kernel_code(c["entry"])
                checked[code] = checked.get(code, True) and bool(c.get("valid"))
    # Every run is judged against the table as it stood before this command (each measured its kernel beside
    # its own candidates); where several runs would replace a problem's kernel, the largest same-run gain wins.
    rows_by_key: dict[str, list[tuple[dict, dict]]] = {}
    for run in runs:
        for row in run["problems"]:
            rows_by_key.setdefault(row["key"], []).append((run, row))
    changed = kept = unmeasured = 0
    for key, rows in rows_by_key.items():
        # Configs compared as configs: a table written before a field existed lacks it (its default).
        current = entries.get(key, {}).get("config")
        current = config_from_dict(current) if current else None
        proposals = []   # (rank, same_run, valid, run, row): the lowest rank wins
        for run, row in rows:
            verdict = _judge_run(row, current, args, checked)
            if verdict == "unmeasured":
                unmeasured += 1
                _say(f"{key}: the table's kernel {current.name} was not measured in this run: kept")
            elif verdict == "kept":
                kept += 1
            elif verdict is not None:
                proposals.append((*verdict, run, row))
        if not proposals:
            continue
        _, same_run, valid, run, row = min(proposals, key=lambda p: p[0])
        if args.agree and same_run is not None and valid[0] is not same_run:
            dissent = _dissenting_run(rows, valid[0], current, args.min_gain, run_files)
            if dissent is not None:
                kept += 1
                _say(f"{key}: {valid[0]['entry']} beat the table's kernel by more than --min-gain in one run but "
                     f"not in {dissent}: kept (--agree)")
                continue
        if same_run is not None and valid[0] is not same_run:
            changed += 1
            _say(f"{key}: {same_run['entry']} {same_run['ms']:.4f} -> {valid[0]['entry']} {valid[0]['ms']:.4f} ms"
                 + (f" (the best of {len(proposals)} runs by same-run gain)" if len(proposals) > 1 else ""))
        entries[key] = {"config": valid[0]["config"], "ms": round(valid[0]["ms"], 5),
                        "runner_up_ms": round(valid[1]["ms"], 5) if len(valid) > 1 else None,
                        "candidates": len(row["candidates"]), "valid": len(valid),
                        "timing": run.get("timing", "loop"),
                        **({"cudnn_ms": round(row["cudnn_ms"], 5)} if "cudnn_ms" in row else {})}
    first = runs[0]
    document = {"card": args.card, "measured_on": first["card"], "driver": first["driver"],
                "arch": first["arch"], "measured": max(run["measured"] for run in runs),
                "how": "iree-cutlass-tune measure: per candidate the median of CUDA-event loops of launches "
                       "(timing: loop) or of CUDA-graph replays (timing: graph); the fastest valid one wins",
                "entries": dict(sorted(entries.items()))}
    from iree_cutlass.cli.common import write_atomically
    write_atomically(path, (json.dumps(document, indent=1) + "\n").encode())
    _say(f"wrote {len(entries)} entries to {path} ({changed} measured kernels replaced, {kept} kept within "
         f"--min-gain {args.min_gain}, {unmeasured} runs without the table's kernel left it)")
    return 0


def _dissenting_run(rows, proposed: dict, current, min_gain: float, run_files: dict) -> str | None:
    """--agree: the first run (its results file, and both times) that timed both `proposed` and the table's kernel
    validly without `proposed` beating it by more than `min_gain`; None where every such run agrees."""
    from iree_cutlass.plugin.kernels import config_from_dict
    wanted = config_from_dict(proposed["config"])
    for run, row in rows:
        timed = [c for c in row["candidates"] if timed_valid(c)]
        mine = next((c for c in timed if config_from_dict(c["config"]) == wanted), None)
        table_kernel = next((c for c in timed if config_from_dict(c["config"]) == current), None)
        if mine is not None and table_kernel is not None and mine["ms"] > table_kernel["ms"] * (1 - min_gain):
            return f"{run_files[id(run)]} ({mine['ms']:.4f} against {table_kernel['ms']:.4f} ms)"
    return None


def _judge_run(row: dict, current, args, checked: dict):
    """What one run says of a problem whose table kernel is `current`: None (no valid candidate), "unmeasured"
    (the table's kernel was not in this run: nothing measured it against the run's kernels), "kept" (it won, or
    lost by no more than --min-gain), or (rank, same_run, valid) proposing valid[0] for the entry. The rank, a
    (tier, value) pair, orders proposals of several runs: first a kernel beating the table's by the largest
    same-run gain; then a run where the table's kernel ran and failed (it must go); then, with no table kernel, the
    lowest time as a fraction of the run's cuDNN (the runs' order where cuDNN was not timed); last, the table's
    kernel winning its run (its entry re-timed)."""
    from iree_cutlass.plugin.kernels import config_from_dict, kernel_code

    def is_current(c) -> bool:
        return config_from_dict(c["config"]) == current

    def admitted(c) -> bool:
        """With --valid-in, a kernel other than the table's own must have run there, and validly."""
        if not args.valid_in:
            return True
        code = kernel_code(c["entry"])
        return checked[code] if code in checked else is_current(c)

    # A check-only run (measure --check-only) has no timings to choose by.
    valid = sorted((c for c in row["candidates"] if timed_valid(c) and admitted(c)
                    and not names_any(c["entry"], args.skip)), key=lambda c: c["ms"])
    if not valid:
        return None
    if current is not None and not any(is_current(c) for c in row["candidates"]):
        return "unmeasured"
    same_run = next((c for c in valid if is_current(c)), None)
    if same_run is not None:
        if valid[0] is same_run:
            return (3, 0.0), same_run, valid
        if valid[0]["ms"] > same_run["ms"] * (1 - args.min_gain):
            return "kept"
        return (0, -same_run["ms"] / valid[0]["ms"]), same_run, valid
    if current is not None:
        return (1, 0.0), None, valid
    return (2, valid[0]["ms"] / row["cudnn_ms"] if row.get("cudnn_ms") else math.inf), None, valid


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="iree-cutlass-tune", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_build = sub.add_parser("build", help="build every candidate kernel of the ResNet-50 dgrad problems")
    p_build.add_argument("--out", type=pathlib.Path, required=True)
    p_build.add_argument("--batches", type=int, nargs="+", default=[8, 256])
    p_build.add_argument("--dtypes", nargs="+", default=["f16", "bf16"])
    p_build.add_argument("--arch", default="sm_90")
    p_build.add_argument("--card", default=None,
                         help="whose tuning table ships each problem's kernel today (the same-run baseline every "
                              "plan measures); default: the compiler's default card")
    p_build.add_argument("--jobs", type=int, default=None)
    p_build.add_argument("--families", nargs="+", default=["sm80", "sm90"], help="kernel families to build")
    p_build.add_argument("--sm80", choices=["all", "selected"], default="all",
                         help="every sm80 tile, or only the one the shipped table/heuristic selects")
    p_build.add_argument("--candidates", nargs="+", default=[""], metavar="SUBSTRING",
                         help="only candidates whose entry point contains any of these (a whole entry point: "
                              "that one alone), and the shipped kernel")
    p_build.add_argument("--skip", nargs="+", default=[], metavar="SUBSTRING",
                         help="with --candidates: leave out the candidates matched by a part of their name whose "
                              "entry point also contains any of these (a whole entry point: that one; a whole entry "
                              "point named in --candidates stays)")
    p_build.add_argument("--twins", nargs="+", default=[], metavar="FIELD[=N]", type=_twin_spec,
                         help="also the shipped kernel of each problem with this boolean config field set (e.g. "
                              "thread_stores) or this integer field set to N (e.g. stages=4), where that kernel "
                              "computes the problem")
    p_build.add_argument("--configs-from", type=pathlib.Path, nargs="+", default=[], metavar="PLAN",
                         help="with --candidates: the kernels it names are also taken from these plans (plan.json), "
                              "for every problem they compute, so that kernels off the sweep's grid (--twins "
                              "FIELD=N) can be checked on other problems")
    p_build.add_argument("--cross-dtype", action="store_true",
                         help="also the kernel the table ships for the same layer in the other type (f16 <-> bf16)")
    p_build.add_argument("--tables", type=pathlib.Path, nargs="+", default=[], metavar="TABLE",
                         help="a re-tune: per problem only each tuning table's kernel (with --cross-dtype also its "
                              "kernel for the other type), beside the shipped one; e.g. another card's table")
    p_build.add_argument("--only", nargs="+", default=[""], metavar="SUBSTRING",
                         help="only problems whose key contains any of these (e.g. _r1_s1_ for the 1x1 layers)")
    p_build.add_argument("--split-k", action="store_true",
                         help="also the sm90 split-K kernels (not shipped: racecheck cannot verify their handoff)")
    p_build.add_argument("--random", type=int, default=0, metavar="N",
                         help="N random problems (workloads.random_layers, as bench/prepare_gpu.py --random) "
                              "instead of the ResNet-50 layers: a numerics check of the candidate kernels on odd "
                              "shapes")
    p_build.add_argument("--seed", type=int, default=5)
    p_build.add_argument("--channel-multiple", type=int, default=8, help="random problems' C and K divide by it")
    p_measure = sub.add_parser("measure", help="on a GPU: check and time every candidate")
    p_measure.add_argument("--plan", type=pathlib.Path, required=True)
    p_measure.add_argument("--out", type=pathlib.Path, required=True)
    p_measure.add_argument("--dtypes", nargs="+", default=["f16", "bf16"])
    p_measure.add_argument("--rounds", type=int, default=5)
    p_measure.add_argument("--calls", type=int, default=10)
    p_measure.add_argument("--seed", type=int, default=20261202)
    p_measure.add_argument("--with-cudnn", action="store_true", help="also time cuDNN (needs torch)")
    p_measure.add_argument("--graph", action="store_true",
                           help="time CUDA-graph replays (GPU time alone) instead of loops of host launches, "
                                "which the host bounds for kernels under ~10 us (iree_cutlass.timing)")
    p_measure.add_argument("--skip", nargs="+", default=[], metavar="SUBSTRING",
                           help="leave out candidates whose entry point contains any of these (a whole entry "
                                "point: that one alone)")
    p_measure.add_argument("--check-only", action="store_true",
                           help="check each candidate's dx, time none (numerics of random problems)")
    p_measure.add_argument("--hang-s", type=float, default=60.0, metavar="SECONDS",
                           help="a candidate (or cuDNN) with no result after this long is recorded as hung, and "
                                "the run goes on in a new process")
    p_measure.add_argument("--resume", action="store_true",
                           help="keep the results already in --out and measure only what they lack")
    p_measure.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p_table = sub.add_parser("table", help="write the fastest valid candidate per problem to a tuning table")
    p_table.add_argument("--results", type=pathlib.Path, nargs="+", required=True, metavar="RESULTS",
                         help="measure results; several runs are each judged against the table as it stood, and "
                              "where more than one would replace a problem's kernel the largest same-run gain "
                              "over it wins")
    p_table.add_argument("--card", default=None, help="whose table to update; default: the compiler's default card")
    p_table.add_argument("--out", type=pathlib.Path, default=None)
    p_table.add_argument("--skip", nargs="+", default=[], metavar="SUBSTRING",
                         help="never choose candidates whose entry point contains any of these (a whole entry "
                              "point: that one alone)")
    p_table.add_argument("--valid-in", type=pathlib.Path, nargs="+", default=[], metavar="RESULTS",
                         help="measure results (e.g. of random problems, iree-cutlass-tune build --random) that a "
                              "kernel other than the table's own must appear in, valid in every run, to be chosen")
    p_table.add_argument("--agree", action="store_true",
                         help="with several runs (e.g. one plan measured twice): a kernel replaces the table's only "
                              "if it beat it by more than --min-gain in every run that timed both validly")
    p_table.add_argument("--min-gain", type=float, default=0.0, metavar="FRACTION",
                         help="keep a problem's current kernel, where this run measured it too, unless the "
                              "fastest beats it by more than this fraction (e.g. 0.01: the run's noise)")
    args = parser.parse_args(argv)
    if args.command in ("build", "table") and args.card is None:
        # Resolved here, not as an argparse default: the GPU side runs `measure` from the source tree alone
        # (PYTHONPATH=python), where iree_cutlass.plugin, the compiler's half, is not importable.
        from iree_cutlass.plugin.select import DEFAULT_CARD
        args.card = DEFAULT_CARD
    args.argv = list(sys.argv[1:] if argv is None else argv)   # measure's worker processes run these again
    started = time.perf_counter()
    code = {"build": build, "measure": measure, "table": table}[args.command](args)
    if not getattr(args, "worker", False):
        _say(f"{args.command} took {time.perf_counter() - started:.1f} s")
    return code


if __name__ == "__main__":
    sys.exit(main())
