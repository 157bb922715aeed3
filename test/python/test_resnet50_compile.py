"""All 44 JAX-lowered ResNet-50 dgrad modules (22 layers, batch 8 and 256) in f16 and in bf16 compile with the
plugin for sm_90, each with exactly one extern dispatch and no conv left for IREE."""

import re

import pytest

from iree_cutlass.driver import compile_source
from iree_cutlass.jax_models import dgrad_module
from iree_cutlass.plugin.select import select_kernel
from iree_cutlass.workloads import dgrad_problem, resnet50_layers

FLAGS = ["--iree-hal-target-device=cuda", "--iree-cuda-target=sm_90"]
LAYERS = resnet50_layers()


def test_the_set_is_complete():
    assert len(LAYERS) == 88 and {l.dtype for l in LAYERS} == {"f16", "bf16"} and {l.n for l in LAYERS} == {8, 256}


@pytest.mark.parametrize("layer", LAYERS, ids=[l.tag for l in LAYERS])
def test_resnet50_dgrad_offloads_whole(layer):
    source = dgrad_module(layer).encode()
    flow = compile_source(source, f"{layer.tag}.mlir", FLAGS, compile_to="flow", remark=lambda _: None)
    text = flow.output.decode()
    externs = re.findall(r"flow\.dispatch @extern_dispatch\w*::@\w+::@(\w+)", text)
    # The shipped H200 table picks an sm90 (Hopper dgrad), an sm90_gemm (CUTLASS's Hopper GEMM, unit-stride 1x1
    # layers) or an sm80 kernel per problem.
    assert len(externs) == 1 and re.match(f"iree_cutlass_(dgrad_(sm90_)?|gemm_sm90_){layer.dtype}_", externs[0])
    assert "conv" not in text.replace("iree_cutlass", "")  # no conv left anywhere, in any form
    assert len(flow.report.records) == 1 and flow.report.records[0].offloaded
    problem = flow.report.records[0].problem
    assert (problem.n, problem.c, problem.k, problem.r, problem.stride_h, problem.pad_h) == \
        (layer.n, layer.c, layer.k, layer.r, layer.stride, layer.pad)

    vmfb = compile_source(source, f"{layer.tag}.mlir", FLAGS, remark=lambda _: None)
    assert vmfb.is_vmfb and vmfb.output[:2] == b"PK" and externs[0].encode() in vmfb.output


H100_SKIPPING = [l for l in LAYERS if select_kernel(dgrad_problem(l), card="h100").name.endswith("_sp")]


@pytest.mark.parametrize("layer", H100_SKIPPING, ids=[l.tag for l in H100_SKIPPING])
def test_h100_table_partner_skipping_kernels_compile(layer):
    # The H100 table's ping-pong kernels that skip their partner's tiles (session 38) are the only table kernels no
    # H200-table compile above builds: each compiles through the plugin into the vmfb with --iree-cutlass-card=h100.
    source = dgrad_module(layer).encode()
    result = compile_source(source, f"{layer.tag}.mlir", FLAGS, card="h100", remark=lambda _: None)
    assert result.is_vmfb and len(result.report.records) == 1 and result.report.records[0].offloaded
    assert result.report.records[0].kernel.endswith("_sp") and result.report.records[0].kernel.encode() in result.output
