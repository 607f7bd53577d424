"""Benchmarks: artifacts against cuDNN in one process, models converted by the runtime, and
their reports."""
