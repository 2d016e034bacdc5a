from nesbot._core.rules cimport Game as GameC

cdef class Game:
    cdef GameC g                # the whole game; copied with one memcpy
    cdef void _set_array(self, str name, int index, int value)
