"""PKF-Reconstructor: regex-driven rewriting of TVM prototype CUDA (TVM-free)."""
