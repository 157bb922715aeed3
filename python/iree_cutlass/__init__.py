"""iree-cutlass: offload convolution backward-data to CUTLASS kernels inside IREE."""
