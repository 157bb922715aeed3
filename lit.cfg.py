# lit configuration for iree-cutlass: FileCheck tests of the dgrad pass and of iree-cutlass-compile.
import os
import shutil

import lit.formats

config.name = "iree-cutlass"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
# The suite is rooted here so `lit .`, `lit test/lit` and `lit test/lit/one.mlir` all find it; only test/ holds tests.
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(os.path.dirname(__file__), "build", "lit")
config.excludes = ["build", "bench", "passes", "plugin", "python", "inputs", ".git", ".whl", ".ci", "out"]

# Kernels are built once per config and shared by every test through one cache.
config.environment["IREE_CUTLASS_CACHE_DIR"] = os.environ.get(
    "IREE_CUTLASS_CACHE_DIR", os.path.join(os.path.dirname(__file__), "build", "kernel-cache"))
for name in ("PATH", "HOME", "CUDACXX", "TMPDIR"):
    if name in os.environ:
        config.environment[name] = os.environ[name]

filecheck = shutil.which("FileCheck") or shutil.which("FileCheck-14")
if filecheck is None:
    lit_config.fatal("FileCheck not found: install Debian's llvm-14-tools (FileCheck-14)")
config.substitutions.append(("FileCheck", filecheck))
for tool in ("iree-cutlass-opt", "iree-cutlass-compile", "iree-compile"):
    if shutil.which(tool) is None:
        lit_config.fatal(f"{tool} not found on PATH: run `pip install -e .[test]` first")
