"""The tuner: config space, builder/runner split, records and apply-best (AutoTVM-style).

Only builder.py imports TVM; everything the GPU machine runs (measure, records, device, search,
best) stays TVM-free.
"""
