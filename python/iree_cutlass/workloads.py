"""The benchmark set: ResNet-50 (v1.5) convolution layers whose backward-data pass a training step runs.

Each entry: (name, H, W, C, K, R, stride, pad) for a forward conv NHWC x[N,H,W,C] * w[R,R,C,K]. The stem (7x7,
C=3) is left out: a training step needs no gradient for the image. Same list as the project's shared reference.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

RESNET50 = [
    ("s1_1x1_64_64",      56, 56,   64,   64, 1, 1, 0),
    ("s1_3x3_64_64",      56, 56,   64,   64, 3, 1, 1),
    ("s1_1x1_64_256",     56, 56,   64,  256, 1, 1, 0),
    ("s1_1x1_256_64",     56, 56,  256,   64, 1, 1, 0),
    ("s2_1x1_256_128",    56, 56,  256,  128, 1, 1, 0),
    ("s2_3x3_128_128s2",  56, 56,  128,  128, 3, 2, 1),
    ("s2_1x1_128_512",    28, 28,  128,  512, 1, 1, 0),
    ("s2_1x1_256_512s2",  56, 56,  256,  512, 1, 2, 0),
    ("s2_1x1_512_128",    28, 28,  512,  128, 1, 1, 0),
    ("s2_3x3_128_128",    28, 28,  128,  128, 3, 1, 1),
    ("s3_1x1_512_256",    28, 28,  512,  256, 1, 1, 0),
    ("s3_3x3_256_256s2",  28, 28,  256,  256, 3, 2, 1),
    ("s3_1x1_256_1024",   14, 14,  256, 1024, 1, 1, 0),
    ("s3_1x1_512_1024s2", 28, 28,  512, 1024, 1, 2, 0),
    ("s3_1x1_1024_256",   14, 14, 1024,  256, 1, 1, 0),
    ("s3_3x3_256_256",    14, 14,  256,  256, 3, 1, 1),
    ("s4_1x1_1024_512",   14, 14, 1024,  512, 1, 1, 0),
    ("s4_3x3_512_512s2",  14, 14,  512,  512, 3, 2, 1),
    ("s4_1x1_512_2048",    7,  7,  512, 2048, 1, 1, 0),
    ("s4_1x1_1024_2048s2", 14, 14, 1024, 2048, 1, 2, 0),
    ("s4_1x1_2048_512",    7,  7, 2048,  512, 1, 1, 0),
    ("s4_3x3_512_512",     7,  7,  512,  512, 3, 1, 1),
]
BATCHES = (8, 256)
DTYPES = ("f16", "bf16")


def out_hw(H: int, R: int, stride: int, pad: int) -> int:
    return (H + 2 * pad - R) // stride + 1


@dataclass(frozen=True)
class ConvLayer:
    """One forward conv whose dgrad is benchmarked: x[n,h,w,c] * w[r,r,c,k] -> y[n,p,p,k] for layout "nhwc"
    (JAX's NHWC/HWIO); x[n,c,h,w] * w[k,c,r,r] -> y[n,k,p,p] for "nchw" (NCHW/OIHW, PyTorch's layout)."""
    name: str
    n: int
    h: int
    w: int
    c: int
    k: int
    r: int
    stride: int
    pad: int
    dtype: str
    layout: str = "nhwc"

    @property
    def p(self) -> int:
        return out_hw(self.h, self.r, self.stride, self.pad)

    @property
    def q(self) -> int:
        return out_hw(self.w, self.r, self.stride, self.pad)

    @property
    def tag(self) -> str:
        return f"{self.name}_n{self.n}_{self.dtype}"

    @property
    def flops(self) -> int:
        """Multiply-adds of the dgrad without the inserted zeros, times two."""
        return 2 * self.n * self.p * self.q * self.k * self.r * self.r * self.c

    @property
    def min_bytes(self) -> int:
        """dy and w read once, dx written once."""
        from iree_cutlass.plugin.problem import ELEMENT_BYTES
        return ELEMENT_BYTES[self.dtype] * (self.n * self.p * self.q * self.k + self.r * self.r * self.c * self.k
                                            + self.n * self.h * self.w * self.c)


def resnet50_layers(batches=BATCHES, dtypes=DTYPES) -> list[ConvLayer]:
    return [ConvLayer(name, n, h, w, c, k, r, stride, pad, dtype)
            for dtype in dtypes for n in batches for (name, h, w, c, k, r, stride, pad) in RESNET50]


def random_layers(count: int, seed: int, channel_multiple: int = 2) -> list[ConvLayer]:
    """Random dgrad problems the kernels should take: any batch, odd and non-square sizes, filters 1 to 7,
    strides 1 to 4, any legal padding, channel counts that are multiples of `channel_multiple` (2: alignments
    8, 4 and 2 for the sm80 kernels; 8 for the sm90 ones), f16 and bf16."""
    rng = random.Random(seed)
    layers = []
    while len(layers) < count:
        r = rng.choice([1, 1, 2, 3, 3, 4, 5, 7])
        stride, pad = rng.randint(1, 4), rng.randint(0, r - 1)
        h, w = rng.randint(max(1, r - 2 * pad), 40), rng.randint(max(1, r - 2 * pad), 40)
        c = channel_multiple * rng.randint(1, 200 // channel_multiple)
        k = channel_multiple * rng.randint(1, 200 // channel_multiple)
        layers.append(ConvLayer(f"rand{len(layers):03d}", rng.randint(1, 4), h, w, c, k, r, stride, pad,
                                rng.choice(["f16", "bf16"])))
    return layers


def dgrad_problem(layer: ConvLayer):
    """The kernel library's description of a layer's dgrad."""
    from iree_cutlass.plugin.problem import DgradProblem
    return DgradProblem(n=layer.n, h=layer.h, w=layer.w, c=layer.c, k=layer.k, r=layer.r, s=layer.r,
                        p=layer.p, q=layer.q, pad_h=layer.pad, pad_w=layer.pad,
                        stride_h=layer.stride, stride_w=layer.stride, dtype=layer.dtype)
