"""iree-cutlass-opt: runs only the dgrad pass on input-phase MLIR and prints the result (for lit tests).

  iree-cutlass-opt FILE [--iree-cuda-target=sm_90] [--iree-cutlass-cache-dir=DIR]
                        [--iree-cutlass-kernels=auto|sm80|sm90] [--iree-cutlass-card=h200] [-o OUT]

Input is what `iree-compile --compile-to=input` prints. Remarks (one per conv) go to stderr.
"""

from __future__ import annotations

import pathlib
import sys

from iree_cutlass.cli.common import fail, kernel_families, read_input, tuning_card, write_output

PROG = "iree-cutlass-opt"


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    inputs, arch, cache_dir, output_path, families_value, card_value = [], "sm_90", None, "-", "auto", None
    index = 0
    while index < len(argv):
        arg = argv[index]
        if arg in ("-h", "--help"):
            print(__doc__)
            return 0
        if arg.startswith("--iree-cuda-target="):
            arch = arg.split("=", 1)[1]
        elif arg.startswith("--iree-cutlass-cache-dir="):
            cache_dir = pathlib.Path(arg.split("=", 1)[1])
        elif arg.startswith("--iree-cutlass-kernels="):
            families_value = arg.split("=", 1)[1]
        elif arg.startswith("--iree-cutlass-card="):
            card_value = arg.split("=", 1)[1]
        elif arg == "-o" and index + 1 < len(argv):
            output_path = argv[index + 1]
            index += 1
        elif arg.startswith("-") and arg != "-":
            fail(PROG, f"unknown flag '{arg}'", code=2)
        else:
            inputs.append(arg)
        index += 1
    if len(inputs) != 1:
        fail(PROG, f"expected exactly one input file, got {len(inputs)}", code=2)

    from iree.compiler import ir
    from iree_cutlass.passes.offload_dgrad import OffloadOptions, offload_dgrads
    from iree_cutlass.plugin.build import KernelBuildError

    families = kernel_families(PROG, families_value)
    card = tuning_card(PROG, card_value)

    context = ir.Context()
    try:
        if inputs[0] == "-":
            source, source_name = read_input(PROG, "-")
            module = ir.Module.parse(source, context)
        else:
            # Parsing the file itself keeps its name in locations, so remarks point into it.
            source_name = inputs[0]
            if not pathlib.Path(source_name).is_file():
                fail(PROG, f"cannot read '{source_name}': no such file")
            module = ir.Module.parseFile(source_name, context)
    except ir.MLIRError as error:
        first = str(error).strip().splitlines()
        fail(PROG, f"cannot parse {source_name}: {first[-1].strip() if first else 'invalid MLIR'}")
    try:
        report = offload_dgrads(module.operation, OffloadOptions(arch=arch, cache_dir=cache_dir, families=families,
                                                                   card=card))
    except KernelBuildError as error:
        fail(PROG, str(error))
    for record in report.records:
        print(record.remark(), file=sys.stderr)
    if not module.operation.verify():
        fail(PROG, "internal error: the rewritten module does not verify")
    write_output(PROG, output_path, str(module).encode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
