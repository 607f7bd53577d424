"""lab: build f44 artifacts with ITrans at 1 channel a thread (config constants patched)."""
import sys
import wino_tvm.kernels.f44.config as config
import wino_tvm.kernels.f44.generate as generate
from wino_tvm.build import main
channels = int(sys.argv[1])
threads = config.ITRANS_PATCH[0] * config.ITRANS_PATCH[1] * config.ITRANS_SLICE // channels
config.ITRANS_CHANNELS = generate.ITRANS_CHANNELS = channels
config.ITRANS_THREADS = generate.ITRANS_THREADS = threads
sys.exit(main(sys.argv[2:]))
