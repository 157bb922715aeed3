"""iree-cutlass-compile: iree-compile with `--iree-plugin=cutlass` to offload dgrad to CUTLASS kernels.

Without `--iree-plugin=cutlass` it runs the stock iree-compile with the same arguments, so its output is stock
IREE's. With it, every iree-compile flag goes to the compiler session, the tool's own flags (input, -o,
--compile-to, --compile-from, --output-format) are handled here, and so are the plugin's:
  --iree-cutlass-cache-dir=DIR    where built kernels are kept (default $IREE_CUTLASS_CACHE_DIR or ~/.cache)
  --iree-cutlass-report=FILE      write the per-conv report as JSON
  --iree-cutlass-kernels=auto     kernel families to choose from: auto (all, by tuning data), sm80, sm90,
                                  sm90_gemm, or a comma list; sm90 (Hopper TMA + wgmma) and sm90_gemm
                                  (CUTLASS's Hopper GEMMs, 1x1 unit-stride layers) need --iree-cuda-target=sm_90
  --iree-cutlass-card=h200        whose tuning table picks each kernel: a card with a table in plugin/tuning
                                  (h100, h200); the kernels run on any sm_90 GPU either way
"""

from __future__ import annotations

import os
import pathlib
import sys

from iree_cutlass.cli.common import fail, kernel_families, read_input, tuning_card, write_output

PROG = "iree-cutlass-compile"
PLUGIN_FLAG = "--iree-plugin="


def _stock_iree_compile(argv: list[str]) -> int:
    from iree.compiler.tools.binaries import find_tool
    tool = find_tool("iree-compile")
    os.execv(tool, [tool] + argv)
    return 1  # not reached


def _value(argv: list[str], index: int, flag: str) -> tuple[str, int]:
    """The value of `flag=value` or `flag value` at argv[index]; returns it and the next index."""
    arg = argv[index]
    if arg.startswith(flag + "="):
        return arg[len(flag) + 1:], index + 1
    if index + 1 >= len(argv):
        fail(PROG, f"{flag} needs a value", code=2)
    return argv[index + 1], index + 2


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    plugins = [a[len(PLUGIN_FLAG):] for a in argv if a.startswith(PLUGIN_FLAG)]
    for name in plugins:
        if name != "cutlass":
            fail(PROG, f"unknown plugin '{name}' (this tool provides --iree-plugin=cutlass)", code=2)
    if not plugins:
        return _stock_iree_compile(argv)
    if any(a in ("-h", "--help") for a in argv):
        print(__doc__)
        return 0

    inputs, flags = [], []
    output_path, compile_to, compile_from, cache_dir, report_path = "-", "end", None, None, None
    families_value, card_value = "auto", None
    index = 0
    while index < len(argv):
        arg = argv[index]
        if arg.startswith(PLUGIN_FLAG):
            index += 1
        elif arg in ("-o", "--o") or arg.startswith(("-o=", "--o=")):
            output_path, index = _value(argv, index, arg.split("=")[0])
        elif arg.startswith("--compile-to"):
            compile_to, index = _value(argv, index, "--compile-to")
        elif arg.startswith("--compile-from"):
            compile_from, index = _value(argv, index, "--compile-from")
        elif arg.startswith("--output-format"):
            value, index = _value(argv, index, "--output-format")
            if value != "vm-bytecode":
                fail(PROG, f"--output-format={value} is not supported with --iree-plugin=cutlass "
                           "(only vm-bytecode)", code=2)
        elif arg.startswith("--iree-cutlass-cache-dir"):
            value, index = _value(argv, index, "--iree-cutlass-cache-dir")
            cache_dir = pathlib.Path(value)
        elif arg.startswith("--iree-cutlass-report"):
            report_path, index = _value(argv, index, "--iree-cutlass-report")
        elif arg.startswith("--iree-cutlass-kernels"):
            families_value, index = _value(argv, index, "--iree-cutlass-kernels")
        elif arg.startswith("--iree-cutlass-card"):
            card_value, index = _value(argv, index, "--iree-cutlass-card")
        elif arg.startswith("--iree-cutlass-"):
            fail(PROG, f"unknown plugin flag '{arg}'", code=2)
        elif arg.startswith("-") and arg != "-":
            flags.append(arg)
            index += 1
        else:
            inputs.append(arg)
            index += 1
    if len(inputs) != 1:
        fail(PROG, f"expected exactly one input file, got {len(inputs)}", code=2)

    from iree_cutlass.driver import CompileError, compile_source
    families = kernel_families(PROG, families_value)
    card = tuning_card(PROG, card_value)
    source, source_name = read_input(PROG, inputs[0])
    try:
        result = compile_source(source, source_name, flags, plugin=True, compile_to=compile_to,
                                compile_from=compile_from, cache_dir=cache_dir, kernel_families=families,
                                card=card)
    except CompileError as error:
        fail(PROG, str(error))
    if result.report is not None:
        print(result.report.summary(), file=sys.stderr)
        if report_path:
            write_output(PROG, report_path, result.report.to_json().encode())
    write_output(PROG, output_path, result.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
