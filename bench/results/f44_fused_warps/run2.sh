#!/bin/bash
bash .lab/f44_fused_warps/run.sh && bash .lab/f44_fused_warps/trace.sh
