"""StableHLO modules for dgrad exactly as JAX lowers them (jax.vjp of a forward conv, jit, lower). Needs jax."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax

from iree_cutlass.workloads import ConvLayer

JNP_DTYPES = {"f16": jnp.float16, "bf16": jnp.bfloat16, "f32": jnp.float32}
# lax dimension numbers (input, filter, output) of each ConvLayer layout.
DIMENSION_NUMBERS = {"nhwc": ("NHWC", "HWIO", "NHWC"), "nchw": ("NCHW", "OIHW", "NCHW")}


def forward_conv(x, w, stride: int, pad: int, layout: str = "nhwc"):
    return lax.conv_general_dilated(x, w, (stride, stride), [(pad, pad), (pad, pad)],
                                    dimension_numbers=DIMENSION_NUMBERS[layout])


def layer_shapes(layer: ConvLayer) -> dict:
    """The shapes of x (and dx), dy and w in the layer's layout."""
    n, h, w, c, k, r, p, q = layer.n, layer.h, layer.w, layer.c, layer.k, layer.r, layer.p, layer.q
    if layer.layout == "nchw":
        return {"x": (n, c, h, w), "dy": (n, k, p, q), "w": (k, c, r, r)}
    return {"x": (n, h, w, c), "dy": (n, p, q, k), "w": (r, r, c, k)}


def dgrad_fn(layer: ConvLayer):
    """dx = vjp of the forward conv with respect to x, as a function of (dy, w)."""
    dtype = JNP_DTYPES[layer.dtype]

    def dgrad(dy, w):
        _, vjp = jax.vjp(lambda x: forward_conv(x, w, layer.stride, layer.pad, layer.layout),
                         jnp.zeros(layer_shapes(layer)["x"], dtype))
        return vjp(dy)[0]
    return dgrad


def dgrad_arg_specs(layer: ConvLayer):
    dtype = JNP_DTYPES[layer.dtype]
    shapes = layer_shapes(layer)
    return jax.ShapeDtypeStruct(shapes["dy"], dtype), jax.ShapeDtypeStruct(shapes["w"], dtype)


def dgrad_module(layer: ConvLayer, donate_output: bool = False) -> str:
    """(dy, w) -> dx; with `donate_output`, (dy, w, dx_storage) -> dx, the storage donated (see below)."""
    return multi_dgrad_module(layer, 1, donate_output)


def multi_dgrad_module(layer: ConvLayer, copies: int, donate_outputs: bool = False) -> str:
    """`copies` independent dgrads of one layer in one function: (dy_0..dy_{n-1}, w) -> (dx_0..dx_{n-1}).

    With `donate_outputs` the function also takes one dx-shaped buffer per dgrad after w and donates it
    (jax.jit donate_argnums): JAX marks each `tf.aliasing_output`, which IREE reads as `iree.abi.output`, so the
    caller's buffers are the results' storage and a call allocates no result memory."""
    one = dgrad_fn(layer)
    dy_spec, w_spec = dgrad_arg_specs(layer)
    if copies == 1 and not donate_outputs:
        return jax.jit(one).lower(dy_spec, w_spec).as_text()

    def many(*args):
        dys, w = args[:copies], args[copies]
        results = tuple(one(dy, w) for dy in dys)
        return results[0] if copies == 1 else results
    specs = [dy_spec] * copies + [w_spec]
    if not donate_outputs:
        return jax.jit(many).lower(*specs).as_text()
    x_spec = jax.ShapeDtypeStruct(layer_shapes(layer)["x"], JNP_DTYPES[layer.dtype])
    donated = tuple(range(copies + 1, 2 * copies + 1))
    return jax.jit(many, donate_argnums=donated, keep_unused=True).lower(*specs, *([x_spec] * copies)).as_text()


def small_cnn_grad_module(dtype: str = "f16", batch: int = 4) -> str:
    """jax.grad of a loss over a 4-conv ReLU CNN (one conv of stride 2) w.r.t. its weights and input."""
    jdtype = JNP_DTYPES[dtype]
    shapes = small_cnn_shapes(batch)

    def loss(params, x):
        h = x
        for (w, stride, pad) in zip(params, (1, 2, 1, 1), (1, 1, 1, 0)):
            h = jax.nn.relu(forward_conv(h, w, stride, pad))
        return jnp.sum(h.astype(jnp.float32) ** 2)
    params = tuple(jax.ShapeDtypeStruct(s, jdtype) for s in shapes["weights"])
    x = jax.ShapeDtypeStruct(shapes["x"], jdtype)
    return jax.jit(jax.grad(loss, argnums=(0, 1))).lower(params, x).as_text()


def small_cnn_shapes(batch: int = 4) -> dict:
    return {"x": (batch, 32, 32, 16),
            "weights": [(3, 3, 16, 32), (3, 3, 32, 64), (3, 3, 64, 64), (1, 1, 64, 128)]}
