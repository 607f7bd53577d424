#!/bin/bash
bash .lab/f44_m_slots/run.sh && bash .lab/f44_fused_warps/trace.sh
