"""Which bits of a CUtensorMap hold the L2 promotion: encodes one tiled 2-D f16 map with each promotion value
through the driver (cuTensorMapEncodeTiled, via ctypes) and prints the 128 bytes' differences from the one with
none. Our kernels build descriptors on the device with tensormap.replace, which has no promotion field, so the
zeroed descriptor they start from would have to carry these bits. Needs a GPU (the driver)."""
import ctypes

import torch

cuda = ctypes.CDLL("libcuda.so.1")
assert cuda.cuInit(0) == 0
buffer = torch.empty(1 << 20, dtype=torch.float16, device="cuda")
u64, u32 = ctypes.c_uint64, ctypes.c_uint32


def encode(promotion: int) -> bytes:
    desc = (ctypes.c_uint8 * 128)()
    dims, strides = (u64 * 2)(4096, 256), (u64 * 1)(4096 * 2)
    box, element_strides = (u32 * 2)(64, 128), (u32 * 2)(1, 1)
    # data type 6 = FLOAT16, interleave 0, swizzle 3 = 128B, OOB fill 0.
    result = cuda.cuTensorMapEncodeTiled(desc, 6, 2, ctypes.c_void_p(buffer.data_ptr()), dims, strides, box,
                                         element_strides, 0, 3, promotion, 0)
    assert result == 0, result
    return bytes(desc)


base = encode(0)
for promotion, name in ((1, "64B"), (2, "128B"), (3, "256B")):
    other = encode(promotion)
    diff = [(i, base[i], other[i]) for i in range(128) if base[i] != other[i]]
    print(f"L2 promotion {name}: bytes differing from none (offset, none, this): {diff}")
