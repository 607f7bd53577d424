"""The reconstructor's one error type."""

from wino_tvm.errors import WinoError


class ReconstructError(WinoError):
    """TVM's CUDA did not have the shape a pass relies on; the message names the pass."""
