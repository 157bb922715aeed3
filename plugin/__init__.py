"""The CUTLASS dgrad kernel library: configurations, CUDA sources, nvcc builds and their cache."""
