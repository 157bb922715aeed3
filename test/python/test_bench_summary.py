"""The CPU side of the GPU tools in bench/: the GPU check's geomean summary (grouped by dtype and batch, failed
timings (strings) and missing peers left out of a ratio rather than counted), merged partial checks, and the kernel
variants' text edits."""

import json
import math
import os
import pathlib

import numpy as np
import pytest

from helpers import load_bench_script, run_from_source_tree


@pytest.fixture(scope="module")
def gpu_check():
    return load_bench_script("gpu_check")


def row(dtype, n, **times):
    return {"dtype": dtype, "n": n, **times}


def test_summary_groups_by_dtype_and_batch(gpu_check):
    rows = [row("f16", 8, kernel_ms=1.0, cudnn_ms=2.0, kernel_graph_ms=1.0, cudnn_graph_ms=1.0),
            row("f16", 8, kernel_ms=1.0, cudnn_ms=8.0, kernel_graph_ms=4.0, cudnn_graph_ms=1.0),
            row("bf16", 8, kernel_ms=3.0, cudnn_ms=1.0),
            row("f16", 256, kernel_ms=1.0, cudnn_ms=1.0)]
    result = gpu_check.summary(rows)
    assert set(result) == {"geomean_f16_n8", "geomean_bf16_n8", "geomean_f16_n256"}
    assert result["geomean_f16_n8"]["kernel_over_cudnn"] == pytest.approx(0.25)   # sqrt(0.5 * 0.125)
    assert result["geomean_f16_n8"]["kernel_over_cudnn_graphs"] == pytest.approx(2.0)
    assert result["geomean_f16_n8"]["kernel_graph_over_cudnn_loop"] == pytest.approx(0.5)  # sqrt(0.5 * 0.5)
    assert result["geomean_f16_n8"]["layers"] == 2
    assert result["geomean_bf16_n8"]["kernel_over_cudnn"] == pytest.approx(3.0)
    assert result["geomean_bf16_n8"]["kernel_over_cudnn_graphs"] is None


def test_summary_leaves_failed_timings_out_of_ratios(gpu_check):
    rows = [row("f16", 256, kernel_ms=2.0, cudnn_ms=1.0, stock_sm_80_ms="compile failed: x", iree_amortized_ms=2.2,
                kernel_rotating_ms=2.0),
            row("f16", 256, kernel_ms=1.0, cudnn_ms=1.0, stock_sm_80_ms=10.0, iree_amortized_ms=1.0,
                kernel_rotating_ms=1.25)]
    result = gpu_check.summary(rows)["geomean_f16_n256"]
    assert result["stock_sm_80_over_cudnn"] == pytest.approx(10.0)
    assert result["iree_amortized_over_kernel"] == pytest.approx(math.sqrt(1.1 * 1.0))
    assert result["iree_amortized_over_kernel_rotating"] == pytest.approx(math.sqrt(1.1 * 0.8))
    assert result["kernel_over_cudnn"] == pytest.approx(math.sqrt(2.0))


def test_merged_parts_keep_their_rows_and_recompute_the_geomeans():
    merge_checks = load_bench_script("merge_checks")
    part = lambda rows, **extra: {"commit": "abc", "dirty_tree": False, "card": "H200", "rows": rows, **extra}
    one = part([row("f16", 256, tag="a", kernel_ms=1.0, cudnn_ms=2.0)], geomean_f16_n256={"stale": 1})
    two = part([row("f16", 256, tag="b", kernel_ms=1.0, cudnn_ms=0.5)])
    merged = merge_checks.merge([one, two])
    assert [r["tag"] for r in merged["rows"]] == ["a", "b"]
    assert merged["geomean_f16_n256"]["kernel_over_cudnn"] == pytest.approx(1.0)  # sqrt(0.5 * 2)
    assert merged["geomean_f16_n256"]["layers"] == 2 and len(merged["parts"]) == 2
    with pytest.raises(SystemExit, match="commit"):
        merge_checks.merge([one, {**two, "commit": "def"}])
    again = merge_checks.merge([one, part([row("f16", 256, tag="a", kernel_ms=9.0, cudnn_ms=1.0)])])
    assert [r["kernel_ms"] for r in again["rows"]] == [1.0] and again["repeated_cases_dropped"] == ["a"]


def test_donated_variants_take_one_poisoned_storage_per_dgrad(gpu_check):
    import numpy as np
    layer = {"name": "t", "n": 2, "h": 9, "w": 7, "c": 8, "k": 16, "r": 3, "stride": 2, "pad": 1, "dtype": "f16"}
    case = {"layer": layer, "variants": {"pipelined": {"donated": True, "flags": []}}}
    dys, w = [np.zeros((2, 5, 4, 16), np.float16)] * 3, np.zeros((3, 3, 8, 16), np.float16)
    assert len(gpu_check.module_inputs(case, "", dys, w)) == 4
    inputs = gpu_check.module_inputs(case, "pipelined", dys, w)
    assert len(inputs) == 7 and inputs[3] is w
    assert all(a.shape == (2, 9, 7, 8) and a.dtype == np.float16 and np.isnan(a).all() for a in inputs[4:])


def test_input_files_save_each_array_once(gpu_check):
    # A row's IREE timings pass the same dy to several modules (16 times to the amortized one): saved once.
    dy, w = np.arange(6, dtype=np.float16).reshape(2, 3), np.ones((3,), dtype=np.float16)
    files = gpu_check.InputFiles()
    try:
        flags = files.flags([dy, dy, w])
        assert flags[0] == flags[1] != flags[2]
        assert files.flags([w]) == [flags[2]]
        np.testing.assert_array_equal(np.load(flags[0].removeprefix("--input=@")), dy)
        np.testing.assert_array_equal(np.load(flags[2].removeprefix("--input=@")), w)
    finally:
        files.close()
    assert not pathlib.Path(flags[0].removeprefix("--input=@")).exists()


def test_result_is_written_whole_after_every_case(gpu_check, tmp_path):
    # A call cut short by its time limit must still leave the finished rows and their geomeans, marked incomplete.
    path = tmp_path / "gpu_check.json"
    result = {"commit": "abc", "rows": [row("f16", 256, tag="a", kernel_ms=1.0, cudnn_ms=2.0)]}
    gpu_check.write_result(path, result, [], complete=False)
    written = json.loads(path.read_text())
    assert written["complete"] is False and written["rows"][0]["tag"] == "a"
    assert math.isclose(written["geomean_f16_n256"]["kernel_over_cudnn"], 0.5)
    result["rows"].append(row("f16", 256, tag="b", kernel_ms=2.0, cudnn_ms=1.0))
    gpu_check.write_result(path, result, [], complete=True)
    written = json.loads(path.read_text())
    assert written["complete"] is True and math.isclose(written["geomean_f16_n256"]["kernel_over_cudnn"], 1.0)
    assert [p.name for p in tmp_path.iterdir()] == ["gpu_check.json"]   # no temporary file left behind


def test_every_kernel_variant_edits_the_kernel_source():
    # bench/kernel_variants.py builds each variant by text edits of a shipped kernel's translation unit: an edit
    # that no longer matches the header (after a change to it) fails here, not on the GPU machine.
    from iree_cutlass.plugin.sm90 import Sm90Config, generate_source
    kernel_variants = load_bench_script("kernel_variants")
    configs = [Sm90Config("f16", 128, 256, 4, 1, store_slots=2, wg_stores=True),
               Sm90Config("bf16", 192, 128, 4, 1, cluster=2, transposed=True, share_dy=True)]
    for config in configs:
        shipped = generate_source(config)
        assert kernel_variants.variant_source(config, "shipped") == shipped
        for variant in set(kernel_variants.VARIANTS) - {"shipped"}:
            assert kernel_variants.variant_source(config, variant) != shipped, variant
        with_probes = kernel_variants.variant_source(config, "shipped", probes=True)
        assert all(f"{config.name}_{probe}(" in with_probes for probe in kernel_variants.PROBES)


def test_kernel_variant_edits_occur_as_often_as_declared(monkeypatch, tmp_path, capsys):
    # An edit names how often its text occurs in the kernel (once unless it says otherwise): text that a header
    # change made appear a second time, or no longer, is refused rather than edited everywhere or nowhere.
    from iree_cutlass.plugin.sm90 import Sm90Config
    kernel_variants = load_bench_script("kernel_variants")
    config = Sm90Config("f16", 128, 256, 4, 1, store_slots=2, wg_stores=True)
    twice = "      if (!unit_tile(walk, index, cu, rank, box, t)) continue;\n"   # the producer's loop and the consumers'
    monkeypatch.setitem(kernel_variants.VARIANTS, "once", ((twice, twice),))
    monkeypatch.setitem(kernel_variants.VARIANTS, "twice", ((twice, twice, 2),))
    monkeypatch.setitem(kernel_variants.VARIANTS, "gone", (("no such text", ""),))
    with pytest.raises(ValueError, match="occurs 2 times in the kernel source, not 1"):
        kernel_variants.variant_source(config, "once")
    assert kernel_variants.variant_source(config, "twice") == kernel_variants.variant_source(config, "shipped")
    with pytest.raises(ValueError, match="occurs 0 times"):
        kernel_variants.variant_source(config, "gone")
    # The build checks every edit on every kernel first: one line, exit 2, nothing compiled or written.
    import argparse
    args = argparse.Namespace(out=tmp_path / "v", variants=["gone"], probes=False, jobs=1,
                              tags=["s4_1x1_1024_512_n256_f16"])
    assert kernel_variants.build(args) == 2
    assert "error: variant gone: 'no such text' occurs 0 times" in capsys.readouterr().err
    assert not (tmp_path / "v").exists()


def test_kernel_variants_refuse_an_entry_the_layer_does_not_offer(tmp_path, capsys):
    # TAG=ENTRY picks another of a layer's candidates; one that is not a candidate of that layer (here a bf16
    # kernel for an f16 layer) is refused before anything is compiled or written.
    import argparse
    kernel_variants = load_bench_script("kernel_variants")
    args = argparse.Namespace(out=tmp_path / "v", variants=["no_store"], probes=False, jobs=1,
                              tags=["s4_1x1_1024_512_n256_f16=iree_cutlass_dgrad_sm90_bf16_128x256x64_s4_c1_n2_e2_ws"])
    assert kernel_variants.build(args) == 2
    assert "is not a candidate for s4_1x1_1024_512_n256_f16" in capsys.readouterr().err
    assert not (tmp_path / "v").exists()


def test_kernel_variants_sass_census_counts_opcodes_per_fatbin(tmp_path, monkeypatch):
    # `sass` runs cuobjdump (the GPU machine has it, this one need not) on each fatbin of a plan and counts its
    # instructions: predicated ones by their opcode, the uniform datapath's (U*, R2UR) apart.
    import argparse
    kernel_variants = load_bench_script("kernel_variants")
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "cuobjdump").write_text("""#!/bin/sh
case "$2" in *broken*) echo "not a fatbin" >&2; exit 1;; esac
cat <<'SASS'
        Function : k
        /*0000*/                   LDC R1, c[0x0][0x28] ;                 /* 0x00000a00ff017b82 */
        /*0010*/                   S2R R0, SR_TID.X ;                     /* 0x0000000000007919 */
        /*0020*/               @P0 IMAD.HI.U32 R2, R0, c[0x0][0x24], RZ ; /* 0x0000090000020a27 */
        /*0030*/              @!UP0 UIADD3 UR4, UR4, 0x1, URZ ;           /* 0x0000000104047890 */
        /*0040*/                   R2UR UR5, R2 ;                          /* 0x00000000020572ca */
        /*0050*/                   EXIT ;                                  /* 0x000000000000794d */
SASS
""")
    (tools / "cuobjdump").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}:{os.environ['PATH']}")
    plan = tmp_path / "plan"
    plan.mkdir()
    (plan / "k-shipped.fatbin").write_bytes(b"")
    out = tmp_path / "sass.json"
    assert kernel_variants.sass_census(argparse.Namespace(plan=plan, out=out)) == 0
    assert json.loads(out.read_text()) == {"k-shipped.fatbin": {"instructions": 6, "uniform": 2, "ldc": 1, "imad": 1}}
    (plan / "k-broken.fatbin").write_bytes(b"")
    out.unlink()
    assert kernel_variants.sass_census(argparse.Namespace(plan=plan, out=out)) == 1
    assert not out.exists()


def test_profile_kernels_picks_variants_of_a_plan_by_tag_and_variant(tmp_path):
    # A kernel's variants share its entry point, so `--variants` picks each by its plan's case and variant name and
    # launches them in the order given (Nsight Compute tells them apart by launch order).
    import argparse
    profile_kernels = load_bench_script("profile_kernels")
    record = {"entry": "iree_cutlass_dgrad_sm90_f16_128x64x64_s8_c1_pp_tr", "grid": [132, 1, 1]}
    case = {"tag": "s1_1x1_256_64_n256_f16", "problem": {"n": 256}, "record": record,
            "fatbins": {"shipped": "k-shipped.fatbin", "step_walk": "k-step_walk.fatbin"}}
    (tmp_path / "plan.json").write_text(json.dumps({"cases": [case], "probes": []}))
    args = argparse.Namespace(plan=None, bundle=None, variants=tmp_path,
                              cases=["s1_1x1_256_64_n256_f16:step_walk", "s1_1x1_256_64_n256_f16:shipped"])
    picks = list(profile_kernels._picks(args))
    assert [(label, fatbin.name) for label, _, fatbin, _ in picks] == [
        ("s1_1x1_256_64_n256_f16:step_walk", "k-step_walk.fatbin"), ("s1_1x1_256_64_n256_f16:shipped", "k-shipped.fatbin")]
    assert all(launch == record and problem == {"n": 256} for _, problem, _, launch in picks)


def test_sanitizer_logs_clear_only_kernels_every_log_launched_and_none_named(tmp_path):
    # Lines as compute-sanitizer and bench/sanitize_kernels.py print them (the race report is session 4's).
    logs = load_bench_script("sanitizer_logs")
    a, b, c, d = (f"iree_cutlass_dgrad_sm90_f16_128x128x64_s3_c1{suffix}" for suffix in ("", "_e1", "_ts", "_k4"))
    memcheck = "\n".join([
        "========= COMPUTE-SANITIZER",
        f"{a:64s} on s1_1x1_64_64_n2_f16        unwritten=0",
        f"{b:64s} on s1_1x1_64_64_n2_f16        unwritten=3",
        f"{c:64s} on s1_1x1_64_64_n2_f16        unwritten=0",
        f"{d:64s} on s1_1x1_64_64_n2_f16        unwritten=0",
        "========= ERROR SUMMARY: 0 errors"])
    racecheck = "\n".join([
        "========= COMPUTE-SANITIZER",
        f"{a:64s} on s1_1x1_64_64_n2_f16        unwritten=0",
        f"{b:64s} on s1_1x1_64_64_n2_f16        unwritten=0",
        f"========= Error: Race reported between Write access at {d}+0x5230",
        f"=========     and Read access at {d}+0x5710 [31744 hazards]",
        f"{d:64s} on s1_1x1_64_64_n2_f16        unwritten=0"])   # cut short: c never ran here
    clean, flagged = logs.clean_kernels([memcheck, racecheck])
    assert clean == {a} and flagged == {b, d}
    (tmp_path / "m.txt").write_text(memcheck)
    (tmp_path / "r.txt").write_text(racecheck)
    results = {"problems": [{"candidates": [{"entry": e} for e in (a, b, c, d, a + "_n2")]}]}
    (tmp_path / "tune.json").write_text(json.dumps(results))
    import contextlib
    import io
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert logs.main(["--logs", str(tmp_path / "m.txt"), str(tmp_path / "r.txt"),
                          "--unverified-in", str(tmp_path / "tune.json"), "--only", "_e1", "_ts", "_k4"]) == 0
    assert printed.getvalue().split() == sorted([b, c, d])


def test_sanitizer_logs_vouch_for_a_gemm_kernel_code_on_any_problem(tmp_path):
    # sm90_gemm kernels are built per problem: a clean run on a random problem clears the ResNet layer's build of
    # the same code, and a flagged one flags it; another code stays unverified.
    logs = load_bench_script("sanitizer_logs")
    pp, co = "iree_cutlass_gemm_sm90_f16_128x128_pp", "iree_cutlass_gemm_sm90_f16_128x256_co"
    log = "\n".join(["========= COMPUTE-SANITIZER",
                     f"{pp}_m98_n24_k40 on rand003 unwritten=0",
                     f"========= Invalid __global__ read of size 4 bytes at {co}_m98_n24_k40+0x16f0",
                     f"{co}_m98_n24_k40 on rand003 unwritten=0"])
    clean, flagged = logs.clean_kernels([log])
    assert clean == {pp} and flagged == {co}
    (tmp_path / "m.txt").write_text(log)
    layer = "_m12544_n512_k2048"
    other = "iree_cutlass_gemm_sm90_f16_128x64_pp"
    results = {"problems": [{"candidates": [{"entry": e + layer} for e in (pp, co, other)]}]}
    (tmp_path / "tune.json").write_text(json.dumps(results))
    import contextlib
    import io
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert logs.main(["--logs", str(tmp_path / "m.txt"), "--unverified-in", str(tmp_path / "tune.json"),
                          "--only", "iree_cutlass_gemm_"]) == 0
    assert printed.getvalue().split() == sorted([co + layer, other + layer])
    # Several runs at once (the tunes of one call): the candidates of all of them.
    second = "_m50176_n256_k1024"
    (tmp_path / "tune2.json").write_text(json.dumps(
        {"problems": [{"candidates": [{"entry": e + second} for e in (pp, co)]}]}))
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert logs.main(["--logs", str(tmp_path / "m.txt"), "--unverified-in", str(tmp_path / "tune.json"),
                          str(tmp_path / "tune2.json"), "--only", "iree_cutlass_gemm_"]) == 0
    assert printed.getvalue().split() == sorted([co + layer, other + layer, co + second])


def tuned_problem(key, shipped_ms, family_ms, cudnn_ms=None, valid=True):
    candidates = [{"config": {"family": "sm90"}, "valid": True, "ms": shipped_ms}]
    candidates += [{"config": {"family": "sm90_gemm"}, "valid": valid, "ms": ms} for ms in family_ms]
    return {"key": key, "candidates": candidates, **({"cudnn_ms": cudnn_ms} if cudnn_ms else {})}


def test_family_vs_shipped_takes_the_best_valid_kernel_of_the_family(tmp_path, capsys):
    module = load_bench_script("family_vs_shipped")
    results = {"problems": [tuned_problem("a", 2.0, [1.0, 1.5], cudnn_ms=4.0),
                            tuned_problem("b", 1.0, [2.0]),
                            tuned_problem("c", 1.0, [0.1], valid=False)]}   # no valid family kernel: left out
    ratios = module.layer_ratios(results, "sm90_gemm")
    assert ratios == {"a": (0.5, 0.5, 0.25), "b": (2.0, None, None)}
    path = tmp_path / "tune.json"
    path.write_text(json.dumps(results))
    assert module.main(["--family", "sm90_gemm", str(path)]) == 0
    out = capsys.readouterr().out
    assert "geomean best/shipped 1.000 over 2 layers; best of both/shipped 0.707" in out   # sqrt(0.5 * 2), sqrt(0.5)
    assert module.main(["--family", "sm80", str(path)]) == 1     # no layer has an sm80 kernel beside one shipped


def test_family_vs_shipped_variants_split_one_family(tmp_path, capsys):
    module = load_bench_script("family_vs_shipped")

    def kernel(entry, ms):
        return {"config": {"family": "sm90"}, "entry": entry, "valid": True, "ms": ms}
    results = {"problems": [{"key": "a", "cudnn_ms": 2.0, "candidates": [
        kernel("k_128x128_ws", 1.0), kernel("k_128x64_pp_tr", 0.8), kernel("k_256x64_pp_n2_tr", 0.9)]}]}
    assert module.layer_ratios(results, "sm90") == {}        # without variants: three of one family, no shipped one
    assert module.layer_ratios(results, "sm90", ["_pp_tr", "_pp_n2_tr"]) == {"a": (0.8, 0.5, 0.4)}
    assert module.layer_ratios(results, "sm90", ["_pp_n2_tr"]) == {}   # two kernels left as "shipped": ambiguous
    path = tmp_path / "tune.json"
    path.write_text(json.dumps(results))
    assert module.main(["--family", "sm90", str(path), "--variants", "_pp_tr", "_pp_n2_tr"]) == 0
    assert "geomean best/shipped 0.800 over 1 layers" in capsys.readouterr().out


def test_table_projection_reads_the_table_kernel_against_cudnn_of_the_same_pass(tmp_path, capsys):
    module = load_bench_script("table_projection")
    shipped = {"family": "sm90", "dtype": "f16", "tile_m": 128, "tile_n": 128, "stages": 4, "ctas_per_sm": 1}
    other = {**shipped, "tile_n": 256}
    table = {"entries": {"n256_a_f16": {"config": shipped}, "n256_b_f16": {"config": other},
                         "n256_c_bf16": {"config": {**shipped, "dtype": "bf16"}}}}

    def problem(key, cudnn_ms, *candidates):
        return {"key": key, "cudnn_ms": cudnn_ms,
                "candidates": [{"config": config, "entry": name, "valid": valid, "ms": ms}
                               for config, name, valid, ms in candidates]}

    results = {"card": "NVIDIA H200", "timing": "graph", "problems": [
        problem("n256_a_f16", 2.0, (shipped, "s", True, 1.0), (other, "o", True, 0.5)),   # the table's, not the fastest
        problem("n256_b_f16", 1.0, (shipped, "s", True, 1.0), (other, "o", True, 4.0)),
        problem("n256_c_bf16", 1.0, ({**shipped, "dtype": "bf16"}, "s", True, 1.1))]}
    rows, missing = module.table_ratios(table, results)
    assert rows == [("n256_a_f16", "s", 0.5), ("n256_b_f16", "o", 4.0), ("n256_c_bf16", "s", 1.1)]
    assert missing == []
    (tmp_path / "table.json").write_text(json.dumps(table))
    (tmp_path / "tune.json").write_text(json.dumps(results))
    assert module.main(["--table", str(tmp_path / "table.json"), str(tmp_path / "tune.json")]) == 0
    out = capsys.readouterr().out
    assert "f16 n256: table kernel / cuDNN geomean 1.414, worst 4.000 over 2 problems" in out   # sqrt(0.5 * 4)
    # The table's kernel invalid in this run: the problem is reported missing and the exit is 1.
    results["problems"][1]["candidates"][1]["valid"] = False
    (tmp_path / "tune.json").write_text(json.dumps(results))
    assert module.main(["--table", str(tmp_path / "table.json"), str(tmp_path / "tune.json")]) == 1
    assert "1 problems without their table kernel or cuDNN: n256_b_f16" in capsys.readouterr().err


def test_sanitizer_batch_is_small_except_for_kernels_built_for_one_problem():
    from iree_cutlass.plugin.select import select_kernel
    from iree_cutlass.workloads import dgrad_problem, resnet50_layers
    module = load_bench_script("prepare_gpu")
    layers = {layer.tag: dgrad_problem(layer) for layer in resnet50_layers((256,), ("bf16",))}
    gemm = layers["s4_1x1_2048_512_n256_bf16"]        # the shipped table's sm90_gemm entry (session 24)
    dgrad = layers["s4_1x1_512_2048_n256_bf16"]
    assert select_kernel(gemm).family == "sm90_gemm" and select_kernel(dgrad).family == "sm90"
    assert module.sanitize_batch(select_kernel(gemm), gemm) == 256     # it traps on any other GEMM extents
    assert module.sanitize_batch(select_kernel(dgrad), dgrad) == module.SANITIZE_BATCH == 4


def test_grid_variants_keep_whole_clusters_and_resident_channel_blocks():
    grid_ab = load_bench_script("grid_ab")
    from iree_cutlass.plugin import sm90
    from iree_cutlass.plugin.kernels import launch_record
    from iree_cutlass.plugin.problem import DgradProblem
    problem = DgradProblem(256, 14, 14, 1024, 256, 1, 1, 14, 14, 0, 0, 1, 1, "f16")
    plain = launch_record(sm90.Sm90Config("f16", 128, 64, 8, 1, "pingpong", transposed=True), problem)
    paired = launch_record(sm90.Sm90Config("f16", 256, 64, 4, 1, "pingpong", 2, transposed=True, share_dy=True),
                           problem)
    resident = launch_record(sm90.Sm90Config("f16", 128, 256, 4, 1, resident_k=4, store_slots=2), problem)
    counts = lambda record: [v["grid"][0] for v in grid_ab.grid_variants(record, problem.__dict__, [99, 120, 126,
                                                                                                     132, 200])]
    assert counts(plain) == [99, 120, 126]       # only grids below the kernel's own 132
    assert counts(paired) == [120, 126]          # whole 2-CTA clusters
    assert counts(resident) == [120]             # four channel blocks of 256: each CTA keeps one slab
    variant = grid_ab.grid_variants(plain, problem.__dict__, [120])[0]
    assert variant["variant"] == "grid_120" and variant["constants"] == plain["constants"]


def test_grid_ratios_divide_each_variant_by_its_own_kernel_in_the_same_run(tmp_path, capsys):
    grid_ab = load_bench_script("grid_ab")
    sm90_config = {"family": "sm90"}
    run = lambda ms_132, ms_120: {"problems": [{"key": "k1", "cudnn_ms": 0.2, "candidates": [
        {"config": sm90_config, "entry": "a", "valid": True, "ms": ms_132},
        {"config": sm90_config, "entry": "a", "variant": "grid_120", "valid": True, "ms": ms_120},
        {"config": sm90_config, "entry": "a", "variant": "grid_96", "valid": False},
        {"config": {"family": "sm90_gemm"}, "entry": "g", "valid": True, "ms": 0.1}]}]}
    assert grid_ab.grid_ratios(run(0.25, 0.24)) == {"k1 a": {"grid_120": pytest.approx(0.96),
                                                              "cudnn": pytest.approx(1.25)}}
    (tmp_path / "1.json").write_text(json.dumps(run(0.25, 0.24)))
    (tmp_path / "2.json").write_text(json.dumps(run(0.2, 0.21)))
    assert grid_ab.summary([tmp_path / "1.json", tmp_path / "2.json"]) == 0
    assert "k1 a | 0.960 / 1.050 | 1.250 / 1.000" in capsys.readouterr().out


def test_grid_summary_runs_from_the_source_tree_alone(tmp_path):
    # The GPU machine runs --summary with PYTHONPATH=python and no install, where iree_cutlass.plugin does not
    # import (session 38's H100 call lost its summary to that import, made at module level).
    result = {"problems": [{"key": "k1", "candidates": [
        {"config": {"family": "sm90"}, "entry": "a", "valid": True, "ms": 0.2},
        {"config": {"family": "sm90"}, "entry": "a", "variant": "grid_120", "valid": True, "ms": 0.21}]}]}
    (tmp_path / "grid.json").write_text(json.dumps(result))
    run = run_from_source_tree("bench/grid_ab.py", "--summary", str(tmp_path / "grid.json"))
    assert run.returncode == 0, run.stderr
    assert "k1 a | 1.050" in run.stdout


def test_sass_profile_counts_opcodes_stalls_and_straight_line_blocks(tmp_path, capsys):
    # Nsight Compute's SASS page: a kernel-name line, the columns, then one row per instruction (counts with commas).
    profile = load_bench_script("sass_profile")
    columns = ["Address", "Source", "Warp Stall Sampling (All Samples)", "Instructions Executed", "stall_wait",
               "stall_long_sb", "stall_wait (Not Issued)"]
    rows = [["0x10", "IMAD.HI.U32 R1, R2, R3, RZ", "6", "1,000", "6", "0", "6"],
            ["0x20", "@!P0  LDC R4, c[0x0][0x10]", "2", "1,000", "0", "2", "0"],
            ["0x30", "@!P1  BRA 0x10", "2", "10", "0", "2", "0"]]
    text = "\n".join([",".join(['"Kernel Name"', '"k"']), *(",".join(f'"{v}"' for v in line)
                                                            for line in [columns, *rows])])
    import gzip
    (tmp_path / "k.sass.csv.gz").write_bytes(gzip.compress(text.encode()))
    assert profile.main([str(tmp_path / "k.sass.csv.gz"), "--blocks", "1"]) == 0
    out = capsys.readouterr().out
    assert "3 instructions, 2010 executed, 10 samples" in out
    assert "stalls: wait 60.0%, long_sb 40.0%" in out          # Not Issued columns left out
    assert "opcodes: IMAD 1000, LDC 1000, BRA 10" in out        # predicates and modifiers stripped
    assert "0x10:    2 x      1000 = 99.5% of instructions, 80.0% of samples; IMAD 1 LDC 1" in out
    (tmp_path / "bad.csv").write_text("not a page\n")
    assert profile.main([str(tmp_path / "bad.csv")]) == 1
