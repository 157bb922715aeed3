"""iree-cutlass-tune: the plan it builds and the table it writes from measurements (no GPU needed here)."""

import json

import pytest

from helpers import run_from_source_tree
from iree_cutlass import tune
from iree_cutlass.plugin.kernels import config_from_dict, config_to_dict
from iree_cutlass.plugin.select import candidate_configs
from iree_cutlass.workloads import dgrad_problem, resnet50_layers


def _results(problem, timings):
    """A results file as `measure` writes it, for the candidates of `problem` with the given outcomes."""
    configs = candidate_configs(problem)
    sm90 = [c for c in configs if c.family == "sm90" and not c.thread_stores][-1:]
    configs = (configs[:len(timings) - 1] + sm90)[:len(timings)]  # sm80 tiles and one sm90 kernel
    candidates = [{"config": config_to_dict(c), "entry": c.name, "valid": ms is not None,
                   **({"ms": ms} if ms is not None else {"error": "CUDAError: launch failed"})}
                  for c, ms in zip(configs, timings)]
    return {"arch": "sm_90", "card": "NVIDIA H200", "driver": 13000, "measured": "2026-12-02",
            "problems": [{"key": problem.key(), "problem": {}, "candidates": candidates, "cudnn_ms": 0.5}]}, configs


def test_table_keeps_the_fastest_valid_candidate(tmp_path):
    problem = dgrad_problem(resnet50_layers((8,), ("f16",))[5])
    results, configs = _results(problem, [0.30, None, 0.20, 0.25])
    (tmp_path / "results.json").write_text(json.dumps(results))
    out = tmp_path / "h200.json"
    assert tune.main(["table", "--results", str(tmp_path / "results.json"), "--out", str(out)]) == 0
    entry = json.loads(out.read_text())["entries"][problem.key()]
    assert config_from_dict(entry["config"]) == configs[2]
    assert (entry["ms"], entry["runner_up_ms"], entry["valid"], entry["cudnn_ms"]) == (0.2, 0.25, 3, 0.5)


def test_table_skip_leaves_named_candidates_out(tmp_path):
    problem = dgrad_problem(resnet50_layers((8,), ("f16",))[5])
    results, configs = _results(problem, [0.30, None, 0.20, 0.25])
    (tmp_path / "results.json").write_text(json.dumps(results))
    out = tmp_path / "h200.json"
    assert tune.main(["table", "--results", str(tmp_path / "results.json"), "--out", str(out),
                      "--skip", configs[2].name]) == 0
    entry = json.loads(out.read_text())["entries"][problem.key()]
    assert config_from_dict(entry["config"]) == configs[3] and entry["valid"] == 2


def test_a_whole_entry_point_names_one_kernel_and_a_part_names_every_kernel_containing_it():
    ring = "iree_cutlass_dgrad_sm90_f16_256x128x64_s4_c1_e1"
    assert tune.names_any(ring, [ring]) and not tune.names_any(ring + "_tr", [ring])
    assert tune.names_any(ring + "_tr", ["_e1"]) and tune.names_any(ring + "_tr", ["x", "_tr"])
    assert not tune.names_any(ring, []) and not tune.names_any(ring, ["_ts"])


def test_table_skips_problems_with_no_valid_candidate_and_keeps_old_entries(tmp_path):
    layers = resnet50_layers((8,), ("f16",))
    first, second = dgrad_problem(layers[0]), dgrad_problem(layers[1])
    out = tmp_path / "h200.json"
    results, _ = _results(first, [0.1])
    (tmp_path / "a.json").write_text(json.dumps(results))
    tune.main(["table", "--results", str(tmp_path / "a.json"), "--out", str(out)])
    results, _ = _results(second, [None, None])
    (tmp_path / "b.json").write_text(json.dumps(results))
    tune.main(["table", "--results", str(tmp_path / "b.json"), "--out", str(out)])
    entries = json.loads(out.read_text())["entries"]
    assert list(entries) == [first.key()]
    assert not list(tmp_path.glob("*.tmp"))


def test_table_records_how_each_entry_was_timed(tmp_path):
    problems = [dgrad_problem(layer) for layer in resnet50_layers((8, 256), ("f16",))[:1] +
                resnet50_layers((256,), ("f16",))[:1]]
    out = tmp_path / "h200.json"
    for problem, timing in ((problems[0], "graph"), (problems[1], None)):
        results, _ = _results(problem, [0.30, 0.20])
        if timing:
            results["timing"] = timing
        (tmp_path / "results.json").write_text(json.dumps(results))
        assert tune.main(["table", "--results", str(tmp_path / "results.json"), "--out", str(out)]) == 0
    entries = json.loads(out.read_text())["entries"]
    assert entries[problems[0].key()]["timing"] == "graph"
    assert entries[problems[1].key()]["timing"] == "loop"    # results written before --graph existed


def test_table_min_gain_keeps_the_current_kernel_within_the_margin(tmp_path):
    # A tuning run of new candidates beside the shipped kernel: a winner within the run's noise does not
    # replace the table's kernel; one that beats it by more than --min-gain does.
    problem = dgrad_problem(resnet50_layers((8,), ("f16",))[5])
    out = tmp_path / "h200.json"
    results, configs = _results(problem, [0.30, 0.25])
    (tmp_path / "first.json").write_text(json.dumps(results))
    assert tune.main(["table", "--results", str(tmp_path / "first.json"), "--out", str(out)]) == 0
    current = config_from_dict(json.loads(out.read_text())["entries"][problem.key()]["config"])
    assert current == configs[1]
    # The table's config may lack fields added since it was written (their defaults): still the same kernel.
    table = json.loads(out.read_text())
    del table["entries"][problem.key()]["config"]["thread_stores"]
    out.write_text(json.dumps(table))
    for timings, expected in (([0.248, 0.25], configs[1]), ([0.24, 0.25], configs[0])):
        results, _ = _results(problem, timings)
        (tmp_path / "next.json").write_text(json.dumps(results))
        assert tune.main(["table", "--results", str(tmp_path / "next.json"), "--out", str(out),
                          "--min-gain", "0.02"]) == 0
        entry = json.loads(out.read_text())["entries"][problem.key()]
        assert config_from_dict(entry["config"]) == expected, timings


def test_table_keeps_a_kernel_the_run_did_not_measure_and_replaces_one_that_failed(tmp_path, capsys):
    # Only kernels of one run are compared: a table kernel missing from the run (a plan of another family) stays;
    # one the run measured as invalid is replaced by the run's fastest valid kernel.
    problem = dgrad_problem(resnet50_layers((8,), ("f16",))[5])
    out = tmp_path / "h200.json"
    results, configs = _results(problem, [0.30, 0.20, 0.25])
    (tmp_path / "first.json").write_text(json.dumps(results))
    assert tune.main(["table", "--results", str(tmp_path / "first.json"), "--out", str(out)]) == 0
    assert config_from_dict(json.loads(out.read_text())["entries"][problem.key()]["config"]) == configs[1]
    results, _ = _results(problem, [0.10, 0.12])          # the table's kernel (configs[1]) is not among these
    (tmp_path / "other.json").write_text(json.dumps(results))
    assert tune.main(["table", "--results", str(tmp_path / "other.json"), "--out", str(out)]) == 0
    entry = json.loads(out.read_text())["entries"][problem.key()]
    assert config_from_dict(entry["config"]) == configs[1] and entry["ms"] == 0.2
    assert "was not measured in this run: kept" in capsys.readouterr().err
    results, _ = _results(problem, [0.10, None, 0.12])    # now it ran, and failed
    (tmp_path / "failed.json").write_text(json.dumps(results))
    assert tune.main(["table", "--results", str(tmp_path / "failed.json"), "--out", str(out)]) == 0
    assert config_from_dict(json.loads(out.read_text())["entries"][problem.key()]["config"]) == configs[0]


def test_table_of_several_runs_takes_the_largest_same_run_gain_over_the_table_kernel(tmp_path, capsys):
    # Two runs of different candidates, each beside the table's kernel (configs[0]): the one that beats it by more
    # in its own run wins, though its time is longer (the runs' clocks differ); a run without the table's kernel
    # is no evidence either way.
    problem = dgrad_problem(resnet50_layers((8,), ("f16",))[5])
    out = tmp_path / "h200.json"
    results, configs = _results(problem, [0.20, 0.30])
    (tmp_path / "first.json").write_text(json.dumps(results))
    assert tune.main(["table", "--results", str(tmp_path / "first.json"), "--out", str(out)]) == 0
    assert config_from_dict(json.loads(out.read_text())["entries"][problem.key()]["config"]) == configs[0]
    slow_clock, _ = _results(problem, [0.40, 0.30])              # configs[1] 1.33x faster than configs[0]
    fast_clock, three = _results(problem, [0.20, 0.18, 0.19])    # three[1] 1.11x faster, configs[1] 1.05x
    without_table_kernel = {**fast_clock, "problems": [{**fast_clock["problems"][0],
                                                         "candidates": fast_clock["problems"][0]["candidates"][1:]}]}
    for name, run in (("a", slow_clock), ("b", fast_clock), ("c", without_table_kernel)):
        (tmp_path / f"{name}.json").write_text(json.dumps(run))
    assert tune.main(["table", "--results", str(tmp_path / "b.json"), str(tmp_path / "a.json"),
                      str(tmp_path / "c.json"), "--out", str(out), "--min-gain", "0.01"]) == 0
    entry = json.loads(out.read_text())["entries"][problem.key()]
    assert config_from_dict(entry["config"]) == configs[1] and entry["ms"] == 0.3
    err = capsys.readouterr().err
    assert "the best of 2 runs by same-run gain" in err and "was not measured in this run: kept" in err
    # Read one at a time, the first run's winner would have stood: the table kernel is no longer in the second.
    assert tune.main(["table", "--results", str(tmp_path / "first.json"), "--out", str(out)]) == 0
    for name in ("b", "a"):
        assert tune.main(["table", "--results", str(tmp_path / f"{name}.json"), "--out", str(out),
                          "--min-gain", "0.01"]) == 0
    assert config_from_dict(json.loads(out.read_text())["entries"][problem.key()]["config"]) == three[1]


def test_table_agree_replaces_the_table_kernel_only_where_every_run_agrees(tmp_path, capsys):
    # One plan measured twice: configs[1] beats the table's kernel (configs[0]) by 10% in the second run but loses
    # in the first. Without --agree the larger same-run gain wins; with it the table's kernel stays, and a kernel
    # that wins both runs by more than --min-gain replaces it.
    problem = dgrad_problem(resnet50_layers((8,), ("f16",))[5])
    out = tmp_path / "h200.json"
    results, configs = _results(problem, [0.20, 0.30])
    (tmp_path / "first.json").write_text(json.dumps(results))
    for name, timings in (("a", [0.20, 0.204]), ("b", [0.20, 0.18]), ("c", [0.20, 0.19])):
        run, _ = _results(problem, timings)
        (tmp_path / f"{name}.json").write_text(json.dumps(run))
    for runs, agree, expected in ((("a", "b"), False, configs[1]), (("a", "b"), True, configs[0]),
                                  (("c", "b"), True, configs[1])):
        assert tune.main(["table", "--results", str(tmp_path / "first.json"), "--out", str(out)]) == 0
        assert tune.main(["table", "--results", *(str(tmp_path / f"{r}.json") for r in runs), "--out", str(out),
                          "--min-gain", "0.01", *(["--agree"] if agree else [])]) == 0
        entry = json.loads(out.read_text())["entries"][problem.key()]
        assert config_from_dict(entry["config"]) == expected, (runs, agree)
    assert "but not in a.json (0.2040 against 0.2000 ms): kept (--agree)" in capsys.readouterr().err


def test_table_of_runs_on_different_cards_is_refused(tmp_path, capsys):
    problem = dgrad_problem(resnet50_layers((8,), ("f16",))[5])
    out = tmp_path / "h200.json"
    for name, card in (("a", "NVIDIA H200"), ("b", "NVIDIA H100 80GB HBM3")):
        results, _ = _results(problem, [0.2, 0.3])
        (tmp_path / f"{name}.json").write_text(json.dumps({**results, "card": card}))
    assert tune.main(["table", "--results", str(tmp_path / "a.json"), str(tmp_path / "b.json"),
                      "--out", str(out)]) == 1
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if "error" in line]
    assert len(errors) == 1 and "different cards" in errors[0] and not out.exists()


def _replace_nvcc_with_empty_files(tmp_path, monkeypatch):
    """`build` without nvcc: each kernel "built" is an empty file named for it."""
    import types

    from iree_cutlass.plugin import build as kernel_build

    def fake_build(configs, arch, jobs):
        built = []
        for config in configs:
            path = tmp_path / f"{config.name}.fatbin"
            path.write_bytes(b"")
            built.append(types.SimpleNamespace(path=path))
        return built

    monkeypatch.setattr(kernel_build, "build_kernels", fake_build)


def test_build_measures_the_shipped_kernel_whatever_the_families(tmp_path, monkeypatch):
    # The bf16 7x7 2048<-512 layer ships an sm90_gemm kernel: a plan of sm90 candidates still measures it beside them.
    from iree_cutlass.plugin.select import select_kernel

    _replace_nvcc_with_empty_files(tmp_path, monkeypatch)
    key = "n256_h7_w7_c2048_k512_r1_s1_p7_q7_pad0x0_str1x1_bf16"
    shipped = select_kernel(next(dgrad_problem(layer) for layer in resnet50_layers((256,), ("bf16",))
                                 if dgrad_problem(layer).key() == key))
    assert shipped.family == "sm90_gemm"
    assert tune.main(["build", "--out", str(tmp_path / "plan"), "--families", "sm90", "--batches", "256",
                      "--dtypes", "bf16", "--only", key, "--candidates", "256x64x64_s4_c1_pp_tr"]) == 0
    [problem] = json.loads((tmp_path / "plan" / "plan.json").read_text())["problems"]
    entries = [c["entry"] for c in problem["candidates"]]
    assert entries[0] == shipped.name and "iree_cutlass_dgrad_sm90_bf16_256x64x64_s4_c1_pp_tr" in entries
    # A sweep of every sm90 kernel, no candidates named, measures it too.
    assert tune.main(["build", "--out", str(tmp_path / "sweep"), "--families", "sm90", "--batches", "256",
                      "--dtypes", "bf16", "--only", key]) == 0
    [problem] = json.loads((tmp_path / "sweep" / "plan.json").read_text())["problems"]
    entries = [c["entry"] for c in problem["candidates"]]
    assert entries[0] == shipped.name and len(entries) > 10 and all("_sm90_" in e for e in entries[1:])


def test_build_names_candidates_and_the_shipped_kernels_twins(tmp_path, monkeypatch):
    # build --candidates names substrings, --skip leaves some of those out, and --twins adds each problem's shipped
    # kernel with a field set: the plan holds exactly those and the shipped kernel (nvcc replaced by empty files).
    import dataclasses

    from iree_cutlass.plugin.select import select_kernel

    _replace_nvcc_with_empty_files(tmp_path, monkeypatch)
    key = "n256_h14_w14_c1024_k512_r1_s1_p14_q14_pad0x0_str1x1_f16"
    assert tune.main(["build", "--out", str(tmp_path / "plan"), "--families", "sm90", "--batches", "256",
                      "--dtypes", "f16", "--only", key, "--candidates", "256x128x64_s4_c1_e1", "--skip", "_ts", "_wp",
                      "_bw", "--twins", "thread_stores"]) == 0
    plan = json.loads((tmp_path / "plan" / "plan.json").read_text())
    [problem] = plan["problems"]
    shipped = select_kernel(dgrad_problem(next(layer for layer in resnet50_layers((256,), ("f16",))
                                               if dgrad_problem(layer).key() == key)))
    entries = {c["entry"] for c in problem["candidates"]}
    assert entries == {shipped.name, dataclasses.replace(shipped, thread_stores=True).name,
                       "iree_cutlass_dgrad_sm90_f16_256x128x64_s4_c1_e1",
                       "iree_cutlass_dgrad_sm90_f16_256x128x64_s4_c1_e1_tr",
                       "iree_cutlass_dgrad_sm90_f16_256x128x64_s4_c1_e1_fl"}
    # A whole entry point names that kernel alone, not the kernels whose names extend it (here its _tr relative).
    assert tune.main(["build", "--out", str(tmp_path / "plan4"), "--families", "sm90", "--batches", "256",
                      "--dtypes", "f16", "--only", key, "--candidates",
                      "iree_cutlass_dgrad_sm90_f16_256x128x64_s4_c1_e1"]) == 0
    plan = json.loads((tmp_path / "plan4" / "plan.json").read_text())
    assert {c["entry"] for c in plan["problems"][0]["candidates"]} == {
        shipped.name, "iree_cutlass_dgrad_sm90_f16_256x128x64_s4_c1_e1"}
    # --cross-dtype adds the kernel the table ships for the same layer in bf16, built for f16 (a layer where the
    # two tables differ, both in the sm90 family).
    key_cross = "n256_h56_w56_c64_k256_r1_s1_p56_q56_pad0x0_str1x1_f16"
    assert tune.main(["build", "--out", str(tmp_path / "plan3"), "--families", "sm90", "--batches", "256",
                      "--dtypes", "f16", "--only", key_cross, "--cross-dtype"]) == 0
    plan = json.loads((tmp_path / "plan3" / "plan.json").read_text())
    problem_cross = next(dgrad_problem(layer) for layer in resnet50_layers((256,), ("f16",))
                    if dgrad_problem(layer).key() == key_cross)
    sibling = select_kernel(dataclasses.replace(problem_cross, dtype="bf16"))
    assert dataclasses.replace(sibling, dtype="f16") != select_kernel(problem_cross)
    assert {c["entry"] for c in plan["problems"][0]["candidates"]} == {
        select_kernel(problem_cross).name, dataclasses.replace(sibling, dtype="f16").name}
    # A whole entry point named is kept although --skip matches it.
    named = "iree_cutlass_dgrad_sm90_f16_256x128x64_s4_c1_e1_tr_ts"
    assert tune.main(["build", "--out", str(tmp_path / "plan2"), "--families", "sm90", "--batches", "256",
                      "--dtypes", "f16", "--only", key, "--candidates", "256x128x64_s4_c1_e1", named,
                      "--skip", "_ts", "_wp", "_bw"]) == 0
    plan = json.loads((tmp_path / "plan2" / "plan.json").read_text())
    assert {c["entry"] for c in plan["problems"][0]["candidates"]} == {
        shipped.name, named, "iree_cutlass_dgrad_sm90_f16_256x128x64_s4_c1_e1",
        "iree_cutlass_dgrad_sm90_f16_256x128x64_s4_c1_e1_tr", "iree_cutlass_dgrad_sm90_f16_256x128x64_s4_c1_e1_fl"}


def test_build_twins_set_integer_fields_off_the_candidate_grid(tmp_path, monkeypatch, capsys):
    # --twins FIELD=N sets an integer field of each problem's shipped kernel: a pipeline shallower than the deepest
    # that fits is no candidate of the sweep, yet the twin is built and measured; a depth that does not fit in
    # shared memory is left out. A name that is no such field is refused with a one-line message.
    import dataclasses

    from iree_cutlass.plugin.select import candidate_configs, select_kernel

    _replace_nvcc_with_empty_files(tmp_path, monkeypatch)
    key = "n256_h56_w56_c256_k64_r1_s1_p56_q56_pad0x0_str1x1_f16"
    problem = next(dgrad_problem(layer) for layer in resnet50_layers((256,), ("f16",))
                   if dgrad_problem(layer).key() == key)
    shipped = select_kernel(problem)
    shallow = dataclasses.replace(shipped, stages=2)
    assert shallow not in candidate_configs(problem)
    assert tune.main(["build", "--out", str(tmp_path / "plan"), "--batches", "256", "--dtypes", "f16", "--only", key,
                      "--candidates", "no_candidate_but_the_shipped_kernel", "--twins", "stages=2",
                      "stages=64"]) == 0
    [planned] = json.loads((tmp_path / "plan" / "plan.json").read_text())["problems"]
    assert [c["entry"] for c in planned["candidates"]] == [shipped.name, shallow.name]
    # --configs-from: a kernel named whole is taken from the plan, off the grid, onto every problem it computes
    # (here random problems; the sweep alone would never build it), and onto none it does not.
    assert tune.main(["build", "--out", str(tmp_path / "rand"), "--random", "40", "--seed", "25",
                      "--channel-multiple", "8", "--candidates", shallow.name,
                      "--configs-from", str(tmp_path / "plan" / "plan.json")]) == 0
    from iree_cutlass.plugin.kernels import supports
    from iree_cutlass.workloads import random_layers
    computed = {dgrad_problem(layer).key() for layer in random_layers(40, 25, 8)
                if supports(shallow, dgrad_problem(layer)) is None}
    rand = json.loads((tmp_path / "rand" / "plan.json").read_text())["problems"]
    assert computed and {p["key"] for p in rand if shallow.name in {c["entry"] for c in p["candidates"]}} == computed
    assert tune.main(["build", "--out", str(tmp_path / "bad"), "--candidates", shallow.name,
                      "--configs-from", str(tmp_path / "missing.json")]) == 2
    for bad in ("stages", "stage=2", "box_walk=1", "stages=two"):
        with pytest.raises(SystemExit) as exit_info:
            tune.main(["build", "--out", str(tmp_path / "bad"), "--twins", bad])
        assert exit_info.value.code == 2
        assert "argument --twins" in capsys.readouterr().err


def test_build_tables_re_tunes_each_tables_kernels(tmp_path, monkeypatch):
    # build --tables: per problem the shipped kernel, each table's kernel and (--cross-dtype) its kernel for the
    # other type, built for this one; nothing else. Here a second table that differs from the shipped one on one
    # problem, and a problem the second table lacks.
    import dataclasses

    from iree_cutlass.plugin.select import TUNING_DIR, select_kernel

    _replace_nvcc_with_empty_files(tmp_path, monkeypatch)
    keys = ["n256_h14_w14_c1024_k512_r1_s1_p14_q14_pad0x0_str1x1_f16",
            "n256_h56_w56_c64_k256_r1_s1_p56_q56_pad0x0_str1x1_f16"]
    problems = {dgrad_problem(layer).key(): dgrad_problem(layer) for layer in resnet50_layers((256,), ("f16", "bf16"))}
    other = "iree_cutlass_dgrad_sm90_f16_256x128x64_s4_c1_e1"
    other_config = next(c for c in candidate_configs(problems[keys[0]]) if c.name == other)
    table = tmp_path / "other.json"
    table.write_text(json.dumps({"card": "other", "entries": {keys[0]: {"config": config_to_dict(other_config)}}}))
    assert tune.main(["build", "--out", str(tmp_path / "plan"), "--batches", "256", "--dtypes", "f16",
                      "--only", *keys, "--tables", str(TUNING_DIR / "h200.json"), str(table), "--cross-dtype"]) == 0
    plan = {row["key"]: {c["entry"] for c in row["candidates"]}
            for row in json.loads((tmp_path / "plan" / "plan.json").read_text())["problems"]}
    for key in keys:
        shipped = select_kernel(problems[key])
        sibling = dataclasses.replace(select_kernel(problems[key.replace("_f16", "_bf16")]), dtype="f16")
        expected = {shipped.name, sibling.name} | ({other} if key == keys[0] else set())
        assert plan[key] == expected
    # --tables picks the candidates itself: --candidates beside it is a usage error.
    assert tune.main(["build", "--out", str(tmp_path / "bad"), "--only", keys[0], "--tables", str(table),
                      "--candidates", "pp_tr"]) == 2


def test_table_valid_in_admits_only_kernels_checked_elsewhere(tmp_path):
    # --valid-in names other results (random odd problems): a new kernel wins only if it ran there and was valid
    # in every run; the table's own kernel needs no such record.
    problem = dgrad_problem(resnet50_layers((8,), ("f16",))[5])
    out = tmp_path / "h200.json"
    results, configs = _results(problem, [0.30, 0.25, 0.20])
    (tmp_path / "first.json").write_text(json.dumps(results))
    tune.main(["table", "--results", str(tmp_path / "first.json"), "--out", str(out), "--skip", configs[2].name])
    assert config_from_dict(json.loads(out.read_text())["entries"][problem.key()]["config"]) == configs[1]
    results, _ = _results(problem, [0.20, 0.25, 0.10])
    (tmp_path / "next.json").write_text(json.dumps(results))
    cases = (("none.json", {}, configs[1]),
             ("bad.json", {configs[2].name: [True, False], configs[0].name: [True]}, configs[0]),
             ("good.json", {configs[2].name: [True, True]}, configs[2]))
    for name, verdicts, expected in cases:
        other = {"problems": [{"key": f"random{i}", "candidates": [{"entry": entry, "valid": v}]}
                              for entry, runs in verdicts.items() for i, v in enumerate(runs)]}
        (tmp_path / name).write_text(json.dumps(other))
        table = tmp_path / f"table_{name}"
        table.write_text(out.read_text())
        assert tune.main(["table", "--results", str(tmp_path / "next.json"), "--out", str(table),
                          "--valid-in", str(tmp_path / name)]) == 0
        entry = json.loads(table.read_text())["entries"][problem.key()]
        assert config_from_dict(entry["config"]) == expected, name


def test_table_valid_in_vouches_for_a_gemm_kernel_by_its_code(tmp_path):
    # An sm90_gemm kernel is built per problem, so the random problems never run the layer's own build: its runs
    # of the same code (other extents) vouch for it, and an invalid one there keeps it out.
    problem = next(p for p in map(dgrad_problem, resnet50_layers((256,), ("f16",)))
                   if p.key().startswith("n256_h7_w7_c512_k2048_r1_s1"))
    gemm = next(c for c in candidate_configs(problem) if c.family == "sm90_gemm")
    results, configs = _results(problem, [0.30])
    results["problems"][0]["candidates"].append({"config": config_to_dict(gemm), "entry": gemm.name, "valid": True,
                                                 "ms": 0.10})
    (tmp_path / "results.json").write_text(json.dumps(results))
    code = gemm.name[:gemm.name.index("_m12544")]
    for name, runs, expected in (("good.json", [True, True], gemm), ("bad.json", [True, False], None)):
        other = {"problems": [{"key": f"random{i}", "candidates": [{"entry": f"{code}_m{98 + i}_n24_k40", "valid": v}]}
                              for i, v in enumerate(runs)]}
        (tmp_path / name).write_text(json.dumps(other))
        table = tmp_path / f"table_{name}"
        assert tune.main(["table", "--results", str(tmp_path / "results.json"), "--out", str(table),
                          "--valid-in", str(tmp_path / name)]) == 0
        entry = json.loads(table.read_text())["entries"].get(problem.key())
        # (bad: the other candidate never ran on the random problems either, so nothing is admitted)
        assert (config_from_dict(entry["config"]) if entry else None) == expected, name


def test_measure_runs_from_the_source_tree_alone():
    """The GPU machine runs `measure` with PYTHONPATH=python and no install (bench/plans/lib.sh): there
    iree_cutlass.plugin, the compiler's half, does not import, so measure's path must not need it (session 37's
    first H100 call lost its tune to a --card default that imported it)."""
    run = run_from_source_tree("-m", "iree_cutlass.tune", "measure", "--help")
    assert run.returncode == 0, run.stderr
    assert "--plan" in run.stdout
