"""Prints the entry names of the kernels that stand beside the table's batch-256 sm90 kernels in call A: the
thread-store twin of each (where its threads copy at most 8 rows), the warpgroup-release twin of each clustered
one, and each layer's kernel from the other 16-bit type, built for this one (`iree-cutlass-tune build
--cross-dtype`; the table's kernel for another layer is no proof that it is valid on this one, so `table
--valid-in` wants them all in the random problems' results)."""
import dataclasses

from iree_cutlass import tune
from iree_cutlass.plugin.select import DEFAULT_CARD, select_kernel
from iree_cutlass.plugin.sm90 import twin
from iree_cutlass.workloads import dgrad_problem, resnet50_layers

problems = [dgrad_problem(layer) for layer in resnet50_layers((256,), ("f16", "bf16"))]
shipped = {select_kernel(problem) for problem in problems}
# sm90.twin: None where Sm90Config's own checks refuse thread stores (more than 8 rows a thread; warp-store and
# halo kernels, which tables ship since session 15) or where they are set already.
twins = {t for c in shipped if c.family == "sm90" and (t := twin(c, thread_stores=True)) is not None}
twins |= {dataclasses.replace(c, wg_release=True) for c in shipped if c.family == "sm90" and c.cluster == 2}
siblings = {tune._sibling_kernel(problem, "sm_90", DEFAULT_CARD) for problem in problems}
print(" ".join(sorted(c.name for c in twins | siblings)))
