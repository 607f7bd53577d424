"""User-facing errors: one clear message naming the problem and the fix."""


class WinoError(Exception):
    """Bad input or environment; the message says what is wrong and how to fix it."""


class NvccNotFound(WinoError):
    """nvcc is not on the PATH."""


class NoGpu(WinoError):
    """No NVIDIA GPU is visible."""
