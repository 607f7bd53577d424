"""wino-tvm: Tensor Core Winograd convolution generated with TVM and the PKF reconstructor."""
