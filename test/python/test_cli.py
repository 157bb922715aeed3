"""The command-line tools: user errors give one line and a non-zero exit, never a traceback or a partial file."""

import os
import pathlib
import subprocess
import sys

import pytest

from helpers import jax_dgrad_text

CUDA = ["--iree-hal-target-device=cuda", "--iree-cuda-target=sm_90"]


def run_tool(tool: str, *args, env=None, stdin=None):
    module = {"compile": "iree_cutlass.cli.compile", "opt": "iree_cutlass.cli.opt"}[tool]
    return subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True, env=env,
                          input=stdin, timeout=300)


def assert_one_line_error(done, code=1, fragment=""):
    assert done.returncode == code, done.stderr
    assert "Traceback" not in done.stderr
    lines = [l for l in done.stderr.splitlines() if "error:" in l and l.startswith("iree-cutlass-")]
    assert len(lines) == 1, done.stderr
    assert fragment in lines[0], lines[0]


@pytest.fixture(scope="module")
def dgrad_file(tmp_path_factory) -> pathlib.Path:
    path = tmp_path_factory.mktemp("src") / "dgrad.mlir"
    path.write_text(jax_dgrad_text(n=2, h=9, w=9, c=8, k=16, r=3, stride=2, pad=1))
    return path


def test_compile_writes_a_vmfb_atomically(dgrad_file, tmp_path):
    out = tmp_path / "out.vmfb"
    done = run_tool("compile", "--iree-plugin=cutlass", *CUDA, str(dgrad_file), "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert "1 dgrad(s) offloaded" in done.stderr
    assert out.read_bytes()[:2] == b"PK"
    assert oct(out.stat().st_mode & 0o777) == oct(0o666 & ~_umask())
    assert [p.name for p in tmp_path.iterdir()] == ["out.vmfb"]  # no temporary left behind


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_missing_input_file(tmp_path):
    assert_one_line_error(run_tool("compile", "--iree-plugin=cutlass", *CUDA, str(tmp_path / "nope.mlir")),
                          fragment="cannot read")


def test_malformed_mlir(tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f( {")
    out = tmp_path / "out.vmfb"
    done = run_tool("compile", "--iree-plugin=cutlass", *CUDA, str(bad), "-o", str(out))
    assert_one_line_error(done, fragment="failed to parse")
    assert not out.exists()


def test_unknown_compiler_flag(dgrad_file):
    assert_one_line_error(run_tool("compile", "--iree-plugin=cutlass", *CUDA, "--no-such-flag", str(dgrad_file)),
                          fragment="'--no-such-flag'")


def test_bad_flag_value(dgrad_file):
    assert_one_line_error(run_tool("compile", "--iree-plugin=cutlass", *CUDA, "--iree-opt-level=O9",
                                   str(dgrad_file)), fragment="'O9'")


def test_process_wide_iree_compile_flags_are_accepted(dgrad_file, tmp_path):
    # iree-compile's global (not session-scoped) options reach LLVM's global parser, as in iree-compile:
    # without memoized, indirect command buffers the VM program executes a direct command buffer per call.
    out = tmp_path / "out.vm.mlir"
    base = ["--iree-plugin=cutlass", *CUDA, str(dgrad_file), "--compile-to=vm", "-o", str(out)]
    done = run_tool("compile", *base)
    assert done.returncode == 0, done.stderr
    assert "hal.device.queue.execute.indirect" in out.read_text()
    done = run_tool("compile", *base, "--iree-hal-indirect-command-buffers=false", "--iree-hal-memoization=false")
    assert done.returncode == 0, done.stderr
    program = out.read_text()
    assert "hal.device.queue.execute.indirect" not in program and "hal.device.queue.execute" in program


def test_bad_value_of_a_process_wide_flag(dgrad_file, tmp_path):
    out = tmp_path / "out.vmfb"
    assert_one_line_error(run_tool("compile", "--iree-plugin=cutlass", *CUDA, "--iree-hal-memoization=maybe",
                                   str(dgrad_file), "-o", str(out)),
                          fragment="'maybe' is invalid value")
    assert not out.exists()


def test_unknown_plugin(dgrad_file):
    assert_one_line_error(run_tool("compile", "--iree-plugin=cudnn", *CUDA, str(dgrad_file)), code=2,
                          fragment="unknown plugin 'cudnn'")


def test_unknown_phase(dgrad_file):
    assert_one_line_error(run_tool("compile", "--iree-plugin=cutlass", *CUDA, "--compile-to=nowhere",
                                   str(dgrad_file)), fragment="unknown --compile-to phase 'nowhere'")


def test_old_target_with_plugin(dgrad_file):
    done = run_tool("compile", "--iree-plugin=cutlass", "--iree-hal-target-device=cuda",
                    "--iree-cuda-target=sm_75", str(dgrad_file))
    assert_one_line_error(done, fragment="sm_80 or newer")


def test_missing_nvcc(dgrad_file, tmp_path):
    env = dict(os.environ, CUDACXX=str(tmp_path / "no-nvcc"), IREE_CUTLASS_CACHE_DIR=str(tmp_path / "cache"))
    out = tmp_path / "out.vmfb"
    done = run_tool("compile", "--iree-plugin=cutlass", *CUDA, str(dgrad_file), "-o", str(out), env=env)
    assert_one_line_error(done, fragment="nvcc")
    assert not out.exists()


def test_unwritable_output(dgrad_file, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    done = run_tool("compile", "--iree-plugin=cutlass", *CUDA, str(dgrad_file), "-o", str(blocker / "out.vmfb"))
    assert_one_line_error(done, fragment="cannot write")


def test_stdin_and_stdout(dgrad_file):
    done = run_tool("compile", "--iree-plugin=cutlass", *CUDA, "--compile-to=preprocessing", "-",
                    stdin=dgrad_file.read_text())
    assert done.returncode == 0, done.stderr
    assert "hal.dispatch.extern" in done.stdout


def test_without_plugin_flag_runs_stock_iree_compile(dgrad_file):
    done = run_tool("compile", "--iree-hal-target-device=cuda", "--iree-cuda-target=sm_90", str(dgrad_file),
                    "-o", os.devnull)
    assert done.returncode != 0 and "missing GPU target" in done.stderr  # stock IREE has no sm_90 codegen


def test_opt_errors(tmp_path):
    assert_one_line_error(run_tool("opt", str(tmp_path / "nope.mlir")), fragment="cannot read")
    bad = tmp_path / "bad.mlir"
    bad.write_text("%0 = ")
    assert_one_line_error(run_tool("opt", str(bad)), fragment="cannot parse")
    assert_one_line_error(run_tool("opt", "--frobnicate", str(bad)), code=2, fragment="unknown flag")


def test_output_to_a_device_writes_into_it_and_keeps_it(dgrad_file, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    done = run_tool("compile", "--iree-plugin=cutlass", *CUDA, str(dgrad_file), "-o", str(fifo))
    data = reader.communicate(timeout=60)[0]
    assert done.returncode == 0, done.stderr
    assert data[:2] == b"PK" and fifo.is_fifo()


def test_card_flag(dgrad_file, tmp_path):
    # --iree-cutlass-card names a card with a tuning table; anything else is a usage error naming the choices, and
    # nothing is written.
    out = tmp_path / "x.vmfb"
    assert_one_line_error(run_tool("compile", "--iree-plugin=cutlass", *CUDA, "--iree-cutlass-card=a100",
                                   str(dgrad_file), "-o", str(out)), code=2,
                          fragment="--iree-cutlass-card=a100: expected one of h100, h200")
    assert not out.exists()
    assert_one_line_error(run_tool("opt", str(dgrad_file), "--iree-cutlass-card="), code=2,
                          fragment="expected one of h100, h200")
    done = run_tool("compile", "--iree-plugin=cutlass", *CUDA, "--iree-cutlass-card=H100", str(dgrad_file),
                    "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert "1 dgrad(s) offloaded to CUTLASS for sm_90 (h100 tuning)" in done.stderr and out.is_file()


def test_kernel_family_flag(dgrad_file, tmp_path):
    assert_one_line_error(run_tool("compile", "--iree-plugin=cutlass", *CUDA, "--iree-cutlass-kernels=sm70",
                                   str(dgrad_file)), code=2, fragment="expected auto or a comma list of sm80, sm90")
    assert_one_line_error(run_tool("opt", str(dgrad_file), "--iree-cutlass-kernels=fast"), code=2,
                          fragment="--iree-cutlass-kernels=fast")
    # The Hopper kernels only exist for sm_90: asking for them alone on another target is a user error.
    out = tmp_path / "x.vmfb"
    assert_one_line_error(run_tool("compile", "--iree-plugin=cutlass", "--iree-hal-target-device=cuda",
                                   "--iree-cuda-target=sm_80", "--iree-cutlass-kernels=sm90", str(dgrad_file),
                                   "-o", str(out)), fragment="needs --iree-cuda-target=sm_90")
    assert not out.exists()
    # So do CUTLASS's Hopper GEMM kernels, alone or with ours.
    for families in ("sm90_gemm", "sm90,sm90_gemm"):
        assert_one_line_error(run_tool("compile", "--iree-plugin=cutlass", "--iree-hal-target-device=cuda",
                                       "--iree-cuda-target=sm_80", f"--iree-cutlass-kernels={families}",
                                       str(dgrad_file), "-o", str(out)),
                              fragment=f"--iree-cutlass-kernels={families} needs --iree-cuda-target=sm_90")
        assert not out.exists()
