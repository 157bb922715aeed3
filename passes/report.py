"""What the pass did with each convolution: the report and the remarks printed from it."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field

from iree_cutlass.plugin.kernels import KernelConfig
from iree_cutlass.plugin.problem import DgradProblem

REMARK_TAG = "[iree-cutlass]"


@dataclass
class ConvRecord:
    location: str                      # file:line:col of the conv
    op: str                            # the conv op's name
    problem: DgradProblem | None = None  # set once the conv is proven a dgrad
    form: str | None = None            # how dy reached the conv: strided, padded, direct
    kernel: str | None = None          # set when offloaded: the kernel's entry point
    config: KernelConfig | None = None  # the kernel's CUTLASS configuration
    kernel_path: str | None = None     # the built fatbin the vmfb embeds
    function: str | None = None        # the util.func that wraps the extern dispatch
    reason: str | None = None          # set when left to IREE

    @property
    def offloaded(self) -> bool:
        return self.kernel is not None

    def remark(self) -> str:
        """One diagnostic line in the compiler's `file:line:col: remark: ...` form."""
        if self.offloaded:
            p = self.problem
            what = (f"dgrad N={p.n} H={p.h} W={p.w} C={p.c} K={p.k} R={p.r} S={p.s} "
                    f"stride={p.stride_h}x{p.stride_w} pad={p.pad_h}x{p.pad_w} {p.dtype}")
            return f"{self.location}: remark: {REMARK_TAG} offloaded {what} to {self.kernel}"
        return f"{self.location}: remark: {REMARK_TAG} left to IREE: {self.reason}"

    def to_json(self) -> dict:
        row = dataclasses.asdict(self)
        row["offloaded"] = self.offloaded
        return row


@dataclass
class Report:
    arch: str
    card: str                      # whose tuning table picked the kernels
    records: list[ConvRecord] = field(default_factory=list)

    @property
    def offloaded(self) -> list[ConvRecord]:
        return [r for r in self.records if r.offloaded]

    def summary(self) -> str:
        return (f"{REMARK_TAG} {len(self.records)} conv(s) seen, {len(self.offloaded)} dgrad(s) offloaded "
                f"to CUTLASS for {self.arch} ({self.card} tuning)")

    def to_json(self) -> str:
        return json.dumps({"arch": self.arch, "card": self.card, "convs": [r.to_json() for r in self.records]},
                          indent=2)
