"""The runtime: kernel choice per layer, JIT builds and their cache, the PyTorch operator."""
