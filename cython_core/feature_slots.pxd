# The evaluation's feature slots: F_<NAME>, the index of each feature in Features.f and in a
# weight set's weights, and the counts that close each group (FEATURE_COUNT,
# SEED_FEATURE_COUNT, NES_FEATURE_END, REACH_FEATURE_END, ALL_FEATURE_COUNT), written by the
# build into features.pxi from the table in cython_core/features.py. "Scare" and "safe
# beside", the right-well features' heights per level, come from the piece ranges
# (nesbot._core.piece_ranges.well_heights).
include "features.pxi"

ctypedef struct Features:
    double f[ALL_FEATURE_COUNT]      # feature values, indexed by the F_ indices
