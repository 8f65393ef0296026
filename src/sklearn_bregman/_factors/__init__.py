"""Initial kernels (``_kernels``) and their low-rank factors G0 with the
out-of-sample maps phi0 (``_factors``).
ARCHITECTURE.md's import layers say what this folder may import.
"""
