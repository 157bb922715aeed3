"""Prints the thread-store twin entry names of the sm90 kernels the table ships for the batch-256 layers."""
import dataclasses

from iree_cutlass.plugin.select import select_kernel
from iree_cutlass.workloads import dgrad_problem, resnet50_layers

shipped = {select_kernel(dgrad_problem(layer)) for layer in resnet50_layers((256,), ("f16", "bf16"))}
print(" ".join(sorted(dataclasses.replace(c, thread_stores=True).name for c in shipped
                      if c.family == "sm90" and c.copy_rows_per_thread <= 8)))
