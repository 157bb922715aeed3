"""The Python API: compile from every source form users hold, run with numpy, and clean one-line errors."""

import io
import pathlib

import numpy as np
import pytest
from iree.compiler import ir

import iree_cutlass
from helpers import jax_dgrad_text, layer
from iree_cutlass.driver import compile_source
from iree_cutlass.jax_models import dgrad_arg_specs, dgrad_fn

SMALL = dict(n=2, h=9, w=9, c=8, k=16, r=3, stride=2, pad=1)


def _assert_one_offload(compiled):
    assert compiled.vmfb[:2] == b"PK"  # a vmfb is a zip-framed FlatBuffer archive
    assert compiled.report is not None
    assert [r.op for r in compiled.report.offloaded] == ["linalg.conv_2d_nhwc_hwcf"]
    assert compiled.report.offloaded[0].problem.stride_h == 2


def test_compile_text():
    _assert_one_offload(iree_cutlass.compile(jax_dgrad_text(**SMALL)))


def test_compile_path(tmp_path):
    path = tmp_path / "dgrad.mlir"
    path.write_text(jax_dgrad_text(**SMALL))
    _assert_one_offload(iree_cutlass.compile(path))


def test_compile_bytecode():
    context = ir.Context()
    context.allow_unregistered_dialects = False
    module = ir.Module.parse(jax_dgrad_text(**SMALL), context)
    buffer = io.BytesIO()
    module.operation.write_bytecode(buffer)
    assert buffer.getvalue()[:4] == b"ML\xefR"
    _assert_one_offload(iree_cutlass.compile(buffer.getvalue()))


def test_compile_jax_lowered():
    import jax
    conv = layer(**SMALL)
    _assert_one_offload(iree_cutlass.compile(jax.jit(dgrad_fn(conv)).lower(*dgrad_arg_specs(conv))))


def test_donated_buffers_become_the_results_storage():
    # jax donate_argnums marks each storage argument tf.aliasing_output; after the pass IREE's ABI must still
    # alias every offloaded dgrad's result to its caller buffer (no result allocation per call).
    from iree_cutlass.jax_models import multi_dgrad_module
    source = multi_dgrad_module(layer(**SMALL), 2, donate_outputs=True)
    assert source.count("tf.aliasing_output") == 2
    compiled = iree_cutlass.compile(source, compile_to="abi")
    text = compiled.vmfb.decode()
    assert len(compiled.report.offloaded) == 2 and text.count("hal.dispatch.extern") == 2
    assert "hal.tensor.alias" in text and "%arg3" in text and "%arg4" in text
    aliased = {line.split(" to ")[1].split()[0] for line in text.splitlines() if "hal.tensor.alias" in line}
    assert aliased == {"%arg3", "%arg4"}


def test_plugin_off_offloads_nothing():
    compiled = iree_cutlass.compile(jax_dgrad_text(**SMALL), plugin=False, target="sm_80")
    assert compiled.report is None and compiled.vmfb[:2] == b"PK"


def test_compile_to_phase_returns_mlir_with_the_extern():
    compiled = iree_cutlass.compile(jax_dgrad_text(**SMALL), compile_to="preprocessing")
    assert b"hal.dispatch.extern" in compiled.vmfb and b"linalg.conv_2d_nhwc_hwcf" not in compiled.vmfb


def test_malformed_mlir_is_a_one_line_compile_error():
    with pytest.raises(iree_cutlass.CompileError) as error:
        iree_cutlass.compile("func.func @broken(")
    assert "\n" not in str(error.value) and "parse" in str(error.value)


def test_unsupported_source_type():
    with pytest.raises(iree_cutlass.CompileError, match="cannot compile a int"):
        iree_cutlass.compile(42)


def test_old_gpu_target_is_refused():
    with pytest.raises(iree_cutlass.CompileError, match="sm_80 or newer"):
        iree_cutlass.compile(jax_dgrad_text(**SMALL), target="sm_75")


def test_unknown_flag_is_named():
    with pytest.raises(iree_cutlass.CompileError, match="'--no-such-flag'"):
        iree_cutlass.compile(jax_dgrad_text(**SMALL), flags=["--no-such-flag"])


def _cpu_vmfb(text: str) -> bytes:
    flags = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu",
             "--iree-llvmcpu-target-cpu=host"]
    return compile_source(text.encode(), "t.mlir", flags, plugin=False).output


def test_run_numpy_in_and_out_on_cpu():
    vmfb = _cpu_vmfb(jax_dgrad_text(n=1, h=4, w=4, c=8, k=8, r=1, stride=1, pad=0))
    dy = np.arange(128, dtype=np.float32).reshape(1, 4, 4, 8).astype(np.float16) / 64
    w = np.eye(8, dtype=np.float16).reshape(1, 1, 8, 8)
    (dx,) = iree_cutlass.run(vmfb, dy, w, device="local-task")
    assert isinstance(dx, np.ndarray) and dx.dtype == np.float16
    np.testing.assert_array_equal(dx, dy)  # an identity 1x1 filter passes dy through


def test_run_a_pipelined_module_with_donated_storage_on_cpu():
    # --iree-execution-model=async-external functions take a wait and a signal fence (IREE's coarse-fences ABI);
    # the API supplies them, and a donated dx buffer comes back as the result, every element written.
    from iree_cutlass.jax_models import dgrad_module
    text = dgrad_module(layer(n=1, h=4, w=4, c=8, k=8, r=1, stride=1, pad=0), donate_output=True)
    flags = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu",
             "--iree-llvmcpu-target-cpu=host", "--iree-execution-model=async-external"]
    vmfb = compile_source(text.encode(), "t.mlir", flags, plugin=False).output
    dy = np.arange(128, dtype=np.float32).reshape(1, 4, 4, 8).astype(np.float16) / 64
    w = np.eye(8, dtype=np.float16).reshape(1, 1, 8, 8)
    module = iree_cutlass.Module(vmfb, device="local-task")
    for _ in range(2):  # a second call on the same module
        (dx,) = module(dy, w, np.full((1, 4, 4, 8), np.nan, np.float16))
        np.testing.assert_array_equal(dx, dy)
    with pytest.raises(iree_cutlass.RunError) as error:
        module(dy, w)  # the storage argument missing
    assert "\n" not in str(error.value)


def test_run_with_wrong_input_shape_is_a_one_line_run_error():
    vmfb = _cpu_vmfb(jax_dgrad_text(n=1, h=4, w=4, c=8, k=8, r=1, stride=1, pad=0))
    module = iree_cutlass.Module(vmfb, device="local-task")
    with pytest.raises(iree_cutlass.RunError) as error:
        module(np.zeros((2, 4, 4, 8), np.float16), np.zeros((1, 1, 8, 8), np.float16))
    assert "\n" not in str(error.value) and "mismatch" in str(error.value)
    with pytest.raises(iree_cutlass.RunError, match="no function 'nope'"):
        module(function="nope")


def test_loading_a_cuda_module_without_a_gpu_driver_is_a_run_error():
    compiled = iree_cutlass.compile(jax_dgrad_text(**SMALL))
    with pytest.raises(iree_cutlass.RunError):
        iree_cutlass.Module(compiled.vmfb, device="local-task")


def test_report_json_lists_every_conv():
    compiled = iree_cutlass.compile(jax_dgrad_text(**SMALL))
    import json
    rows = json.loads(compiled.report.to_json())["convs"]
    assert len(rows) == 1 and rows[0]["offloaded"] and rows[0]["kernel"].startswith("iree_cutlass_dgrad_sm90_f16_")
    assert pathlib.Path(rows[0]["kernel_path"]).is_file()


def test_cuda_modules_get_the_measured_runtime_settings(monkeypatch):
    # The CUDA driver must see the allocation flags before it is created, and the device the caching allocator.
    import iree.runtime as ireert
    from iree_cutlass import runtime
    calls = []

    class Driver:
        def create_default_device(self, allocators=None):
            calls.append(("device", allocators))
            return "cuda-device"

    monkeypatch.setattr(runtime, "_CONFIGS", {})
    monkeypatch.setattr(ireert.flags, "parse_flags", lambda *flags: calls.append(("flags", flags)))
    monkeypatch.setattr(ireert, "get_driver", lambda name: calls.append(("driver", name)) or Driver())
    monkeypatch.setattr(ireert, "Config", lambda *args, device=None: ("config", args, device))
    assert runtime._device_config("cuda") == ("config", (), "cuda-device")
    assert calls == [("flags", ("--cuda_async_allocations=false",)), ("driver", "cuda"), ("device", ["caching"])]
    calls.clear()
    assert runtime._device_config("cuda", tuned=False) == ("config", ("cuda",), None)  # IREE's own defaults
    assert runtime._device_config("local-task") == ("config", ("local-task",), None)
    assert calls == []


def test_a_module_left_to_iree_is_stock_iree_compiles_output():
    # Odd 16-bit channels at stride 2: no kernel takes it, so the pass must leave the module exactly as it was.
    text = jax_dgrad_text(n=2, h=9, w=9, c=3, k=5, r=3, stride=2, pad=1).encode()
    flags = ["--iree-hal-target-device=cuda", "--iree-cuda-target=sm_89"]
    remarks = []
    ours = compile_source(text, "t.mlir", flags, plugin=True, remark=remarks.append)
    assert ours.report.offloaded == [] and any("left to IREE: C=3 is odd" in r for r in remarks)
    assert ours.output == compile_source(text, "t.mlir", flags, plugin=False).output


def test_demo_card_follows_the_gpu_and_refuses_unknown_cards(capsys):
    # The main job picks the tuning table of the GPU it finds (a table's card named in the device's name), else the
    # default; an explicit card without a table is a one-line error before anything is built.
    from iree_cutlass import demo
    assert demo.card_for_device("NVIDIA H100 80GB HBM3") == "h100"
    assert demo.card_for_device("NVIDIA H200") == "h200"
    assert demo.card_for_device("NVIDIA A100-SXM4-80GB") == "h200" and demo.card_for_device("") == "h200"
    assert demo.main(["--card", "a100"]) == 1
    assert "--iree-cutlass-card=a100: expected one of h100, h200" in capsys.readouterr().err
