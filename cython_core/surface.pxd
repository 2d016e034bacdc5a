# The surface table's encoding (nesbot/evaluation/surface_builder.py), shared by its build and the
# evaluator's
# feature surface_value: the index of a surface is the base-7 number whose digit i is the
# height difference of columns i + 1 and i, clamped to [-3, 3], plus 3.
cdef long surface_index(const int* heights, int columns) noexcept nogil
