"""The convolution backward-data problem that a kernel is built and chosen for."""
from dataclasses import dataclass

DTYPES = ("f16", "bf16", "f32")
ELEMENT_BYTES = {"f16": 2, "bf16": 2, "f32": 4}


@dataclass(frozen=True)
class DgradProblem:
    """dx[n,h,w,c] = sum over k,r,s,p,q with h == p*stride_h - pad_h + r and w == q*stride_w - pad_w + s
    of dy[n,p,q,k] * w_krsc[k,r,s,c]: the gradient of a forward NHWC cross-correlation, no dilation.

    dx is [n,h,w,c] (NHWC), dy is [n,p,q,k] (NPQK), the forward filter is [k,r,s,c] (KRSC).
    H and P need not satisfy P == (H + 2*pad - R) // stride + 1: dx rows that no dy row reaches get 0.
    Inputs and output are `dtype`; accumulation is always f32.
    """

    n: int
    h: int
    w: int
    c: int
    k: int
    r: int
    s: int
    p: int
    q: int
    pad_h: int
    pad_w: int
    stride_h: int
    stride_w: int
    dtype: str

    def __post_init__(self):
        if self.dtype not in DTYPES:
            raise ValueError(f"dtype must be one of {DTYPES}, got {self.dtype!r}")
        for name in ("n", "h", "w", "c", "k", "r", "s", "p", "q", "stride_h", "stride_w"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        for name in ("pad_h", "pad_w"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be a non-negative int, got {value!r}")

    def key(self) -> str:
        """A stable string naming this problem in tuning tables."""
        return (
            f"n{self.n}_h{self.h}_w{self.w}_c{self.c}_k{self.k}_r{self.r}_s{self.s}"
            f"_p{self.p}_q{self.q}_pad{self.pad_h}x{self.pad_w}"
            f"_str{self.stride_h}x{self.stride_w}_{self.dtype}"
        )

    @property
    def strided(self) -> bool:
        return self.stride_h > 1 or self.stride_w > 1


def checked_push_constants(values: list[int]) -> list[int]:
    """Push constants are uint32 kernel parameters; the kernels index with int32: refuse what does not fit."""
    for value in values:
        if not 0 <= value <= 2**31 - 1:
            raise ValueError(f"problem dimension {value} does not fit a 32-bit push constant")
    return values
