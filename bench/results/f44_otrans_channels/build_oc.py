"""lab: build f44 artifacts with OTrans at 2 channels a thread (config constant patched)."""
import sys
import wino_tvm.kernels.f44.config as config
import wino_tvm.kernels.f44.generate as generate
from wino_tvm.build import main
channels = int(sys.argv[1])
config.OTRANS_CHANNELS = generate.OTRANS_CHANNELS = channels
sys.exit(main(sys.argv[2:]))
