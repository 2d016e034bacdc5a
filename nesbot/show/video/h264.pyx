"""H.264 pictures of the NES screen written without an encoder: lossless, and as cheap as
the picture is still.

x264 weighs every macroblock of every frame (about 1 ms a frame at 720 lines), and on two
cores that work slows the game beside it. A recorded game changes little from frame to frame
(half the frames repeat the last; most others move one piece), and what changes moves by
whole NES cells. So each macroblock (16x16 picture pixels) is written as the first of these
that reproduces it exactly:

* P_Skip: the reference picture's block at the motion the decoder predicts (H.264 8.4.1.1);
* P_L0_16x16 with no residual: the reference's block at a motion vector from a short list
  (0; the neighbours' motion; one to four NES rows up, which is how a piece falls and the
  stack drops after a line clear; one column either side);
* I_16x16 with no residual: a vertical, horizontal or DC prediction from the neighbouring
  pixels (8.3.3, 8.3.4), which is exact on the screen's flat areas;
* I_PCM: the samples themselves (384 bytes).

Every picture therefore decodes to exactly the yuv420p planes it was given, so the writer
keeps no reconstruction. Motion is in whole, even pixels (chroma moves by whole samples), and
never points outside the picture.

The stream is Constrained Baseline: CAVLC, one slice per picture, four reference pictures,
picture order from frame_num (pic_order_cnt_type 2), the deblocking filter off (it would
change exact samples), BT.601 limited-range colour in the VUI. Every IDR access unit carries
the SPS and PPS before its slice, so that a player can start at any IDR picture (an MP4 muxer
also keeps the first pair in the sample description; repeating identical parameter sets in
the stream is allowed). Access units are Annex B byte streams.

The level (choose_level) is the lowest whose every limit holds whatever the pictures are:
an IDR picture of noise is all I_PCM, and A.3.1's minimum compression ratio must allow it
even as the first access unit.
"""

from libc.string cimport memcmp, memcpy

import numpy as np

cdef enum:
    LOG2_MAX_FRAME_NUM = 4
    NAL_SPS = 0x67  # nal_ref_idc 3, type 7
    NAL_PPS = 0x68  # nal_ref_idc 3, type 8
    NAL_IDR = 0x65  # nal_ref_idc 3, type 5
    NAL_P = 0x41  # nal_ref_idc 2 (a reference picture), type 1
    SLICE_P = 5  # every slice of the picture is P
    SLICE_I = 7  # every slice of the picture is I
    I_PCM_IN_I = 25  # mb_type I_PCM in an I slice; in a P slice intra types come after 5
    INTRA_IN_P = 5
    I16_CBP0 = 1  # mb_type I_16x16_<mode>_0_0 is 1 + mode (luma mode 0-3)
    PCM_BYTES = 384  # 256 luma + 2 x 64 chroma samples
    MAX_CANDIDATES = 16
    # Reference pictures: the last four. A Tetris flashes the screen on one frame in four,
    # so each picture of the flash repeats the one four frames before.
    REFERENCES = 4
    # The farthest motions tried, in NES cells (_candidates): content that moved down up to
    # four rows (motion up to four cells up), up one row, or one column either way. No motion
    # vector, tried or predicted (a median of these), goes beyond them, and _same refuses
    # any that would: the SPS says so in log2_max_mv_length_*, and the level allows it.
    CELLS_UP = 4
    CELLS_DOWN = 1
    CELLS_ACROSS = 1

# H.264 Table A-1 (Rec. ITU-T H.264 (08/2021); levels 6-6.2 since the 10/2016 edition), in
# order: level_idc, MaxMBPS (macroblocks/s), MaxFS (macroblocks), MaxDpbMbs (macroblocks),
# MaxBR (1000 bit/s for Baseline's VCL HRD, 1200 for its NAL HRD: E.2.2), MaxCPB (1000 or
# 1200 bits), MaxVmvR (luma samples), MinCR, MaxMvsPer2Mb (0 where the table has "-").
# Level 1b (level_idc 11 with constraint_set3_flag) is left out: its frame size is level 1's
# 99 macroblocks, less than any picture here.
LEVELS = (
    (10, 1485, 99, 396, 64, 175, 64, 2, 0),
    (11, 3000, 396, 900, 192, 500, 128, 2, 0),
    (12, 6000, 396, 2376, 384, 1000, 128, 2, 0),
    (13, 11880, 396, 2376, 768, 2000, 128, 2, 0),
    (20, 11880, 396, 2376, 2000, 2000, 128, 2, 0),
    (21, 19800, 792, 4752, 4000, 4000, 256, 2, 0),
    (22, 20250, 1620, 8100, 4000, 4000, 256, 2, 0),
    (30, 40500, 1620, 8100, 10000, 10000, 256, 2, 32),
    (31, 108000, 3600, 18000, 14000, 14000, 512, 4, 16),
    (32, 216000, 5120, 20480, 20000, 20000, 512, 4, 16),
    (40, 245760, 8192, 32768, 20000, 25000, 512, 4, 16),
    (41, 245760, 8192, 32768, 50000, 62500, 512, 2, 16),
    (42, 522240, 8704, 34816, 50000, 62500, 512, 2, 16),
    (50, 589824, 22080, 110400, 135000, 135000, 512, 2, 16),
    (51, 983040, 36864, 184320, 240000, 240000, 512, 2, 16),
    (52, 2073600, 36864, 184320, 240000, 240000, 512, 2, 16),
    (60, 4177920, 139264, 696320, 240000, 240000, 8192, 2, 16),
    (61, 8355840, 139264, 696320, 480000, 480000, 8192, 2, 16),
    (62, 16711680, 139264, 696320, 800000, 800000, 8192, 2, 16),
)
# Colour description in the VUI: BT.601 (SMPTE 170M) primaries, transfer and matrix.
BT601 = 6
# The most an I_PCM macroblock takes besides its samples: mb_skip_run ue(0) in a P slice (1
# bit), mb_type (9 bits: ue(25) in an I slice, ue(30) in a P slice) and pcm_alignment_zero_bits
# (at most 7): under 3 bytes. And the most an access unit takes besides its macroblocks: the
# SPS (about 20 bytes), the PPS (5), the slice's NAL header, slice header and trailing bits,
# and an emulation-prevention byte or two among their bits.
PCM_HEADER_BYTES = 3
ACCESS_UNIT_OVERHEAD = 64


def worst_access_unit_bytes(int macroblocks):
    """The most bytes (NumBytesInNALunit summed over the SPS, PPS and slice) an access unit
    of this many macroblocks can take: every macroblock I_PCM. No emulation-prevention byte
    falls among the samples, since that needs two zero bytes: the samples are in the limited
    range the VUI declares (16-235, 16-240; below and above that, BT.601 still reserves
    codes 0 and 255), so none is 0."""
    return macroblocks * (PCM_BYTES + PCM_HEADER_BYTES) + ACCESS_UNIT_OVERHEAD


def choose_level(int width_mbs, int height_mbs, double rate, int refs, double motion):
    """The lowest level_idc of Table A-1 whose every limit in A.3.1 that the writer's choices
    decide holds for a `width_mbs` x `height_mbs` picture at `rate` pictures a second with
    `refs` reference frames (max_num_ref_frames and max_dec_frame_buffering) and motion
    vector components of at most `motion` luma samples either way, whatever the pictures:

    * e-g: the frame size within MaxFS, and each side within sqrt(8 * MaxFS);
    * a, b: a picture every 1/rate seconds, no sooner than PicSizeInMbs / MaxMBPS and fR
      (1/172; 1/300 at levels 6-6.2) allow;
    * h: refs frames within MaxDpbFrames = Min(MaxDpbMbs / PicSizeInMbs, 16);
    * k, l: motion within MaxVmvR vertically, 2048 (8192 from level 6) horizontally;
    * m: MaxMvsPer2Mb: the writer's macroblocks have one motion vector each (P_L0_16x16,
      P_Skip) or none, two in any two, within every level's limit;
    * n: at most 3200 bits of macroblock_layer(): I_PCM, the largest, takes 9 + 7 + 3072;
    * c, d: MinCR: the largest access unit (worst_access_unit_bytes) within 384 *
      Max(PicSizeInMbs, fR * MaxMBPS) / MinCR bytes as the first access unit (its removal
      time tr(0) taken as its nominal one, the least the limit can be), and within
      384 * MaxMBPS * (1 / rate) / MinCR as any later one.

    MaxBR and MaxCPB (item i, j) are left out: an IDR picture of noise at every IDR would
    pass any bit rate a level allows at 60 pictures a second. They hold for what the NES
    shows, whose pictures are mostly skips: a statistical bound, which
    tests/test_h264_level.py checks on a recorded game with the HRD's CPB model.
    """
    cdef int macroblocks = width_mbs * height_mbs
    cdef double f_r, interval = 1.0 / rate
    worst = worst_access_unit_bytes(macroblocks)
    for level, mbps, frame, dpb, _, _, vmv_r, min_cr, _ in LEVELS:
        f_r = 1.0 / 300 if level >= 60 else 1.0 / 172
        if (
            macroblocks <= frame
            and width_mbs * width_mbs <= 8 * frame
            and height_mbs * height_mbs <= 8 * frame
            and interval >= max(macroblocks / <double>mbps, f_r)
            and refs <= min(dpb // macroblocks, 16)
            and motion <= vmv_r - 0.25
            and motion <= (8191.75 if level >= 60 else 2047.75)
            and worst <= 384 * max(macroblocks, f_r * mbps) / min_cr
            and worst <= 384 * mbps * interval / min_cr
        ):
            return level
    raise ValueError(
        f"no H.264 level takes {width_mbs}x{height_mbs} macroblocks at {rate} per second"
    )


def log2_max_mv_length(int low, int high):
    """log2_max_mv_length_* (E.2.1) for motion vector components from `low` to `high`
    quarter samples: the least n whose range -2^n to 2^n - 1 holds them (0-15)."""
    cdef int n = 0
    while n < 15 and (low < -(1 << n) or high > (1 << n) - 1):
        n += 1
    if low < -(1 << n) or high > (1 << n) - 1:
        raise ValueError(f"motion from {low} to {high} quarter samples is beyond 2^15")
    return n


cdef struct Bits:
    unsigned char* data
    Py_ssize_t size  # whole bytes written
    unsigned int pending  # bits not yet a whole byte
    int pending_count


cdef inline Bits bits_into(unsigned char* data) noexcept nogil:
    cdef Bits w
    w.data = data
    w.size = 0
    w.pending = 0
    w.pending_count = 0
    return w


cdef inline void put(Bits* w, unsigned int value, int count) noexcept nogil:
    cdef int i
    for i in range(count - 1, -1, -1):
        w.pending = (w.pending << 1) | ((value >> i) & 1)
        w.pending_count += 1
        if w.pending_count == 8:
            w.data[w.size] = <unsigned char>w.pending
            w.size += 1
            w.pending = 0
            w.pending_count = 0


cdef inline void put_ue(Bits* w, unsigned int value) noexcept nogil:
    """Exp-Golomb ue(v): as many zeros as the code has bits after its first, then the code."""
    cdef unsigned int code = value + 1
    cdef int length = 0
    while (code >> length) > 1:
        length += 1
    put(w, 0, length)
    put(w, code, length + 1)


cdef inline void put_se(Bits* w, int value) noexcept nogil:
    put_ue(w, <unsigned int>(2 * value - 1) if value > 0 else <unsigned int>(-2 * value))


cdef inline void align_zero(Bits* w) noexcept nogil:
    while w.pending_count:
        put(w, 0, 1)


cdef inline void trailing_bits(Bits* w) noexcept nogil:
    put(w, 1, 1)
    align_zero(w)


cdef Py_ssize_t escape(const unsigned char* rbsp, Py_ssize_t size,
                       unsigned char* out) noexcept nogil:
    """A NAL unit's payload from its RBSP: an emulation-prevention 0x03 after two zero bytes
    that precede a byte of 0-3 (7.4.1). Returns the payload's size."""
    cdef Py_ssize_t i, n = 0
    cdef int zeros = 0
    cdef unsigned char byte
    for i in range(size):
        byte = rbsp[i]
        if zeros == 2 and byte <= 3:
            out[n] = 3
            n += 1
            zeros = 0
        out[n] = byte
        n += 1
        zeros = zeros + 1 if byte == 0 else 0
    return n


cdef inline int median3(int a, int b, int c) noexcept nogil:
    if a > b:
        a, b = b, a
    # now a <= b
    if c <= a:
        return a
    if c >= b:
        return b
    return c


cdef inline bint repeats_above(
    const unsigned char[:, ::1] p, int x0, int y0, int size
) noexcept nogil:
    """Whether each row of the size x size block repeats the row above it (vertical)."""
    cdef int j
    for j in range(size):
        if memcmp(&p[y0 + j, x0], &p[y0 - 1, x0], size):
            return False
    return True


cdef inline bint repeats_left(
    const unsigned char[:, ::1] p, int x0, int y0, int size
) noexcept nogil:
    """Whether each row of the block repeats the sample left of it (horizontal)."""
    cdef int i, j
    for j in range(size):
        for i in range(size):
            if p[y0 + j, x0 + i] != p[y0 + j, x0 - 1]:
                return False
    return True


cdef inline bint flat(
    const unsigned char[:, ::1] p, int x0, int y0, int size, int value
) noexcept nogil:
    """Whether every sample of the block is value (DC)."""
    cdef int i, j
    for j in range(size):
        for i in range(size):
            if p[y0 + j, x0 + i] != value:
                return False
    return True


cdef class H264Writer:
    """Writes pictures of one size as an H.264 stream (see the module docstring).

    `write(y, u, v, dirty, idr)` takes the yuv420p planes of the next picture and a
    macroblock map of where it may differ from the last (1: may differ; 0: the caller
    guarantees it does not), and returns its access unit. The first picture must be IDR.
    """

    cdef readonly int width, height, mb_width, mb_height, level
    cdef readonly double rate
    cdef readonly int cell  # a NES cell's size in picture pixels: the motions worth trying
    # The motion vector components the writer may use, in quarter samples: x within
    # +-reach_x, y from -reach_up to reach_down; and the SPS's log2_max_mv_length_* for them.
    cdef readonly int reach_x, reach_up, reach_down, log2_mv_x, log2_mv_y
    # What the last picture used, for tests and figures: macroblocks of each kind.
    cdef readonly int skipped, moved, predicted, raw
    # The reference pictures, as decoded, in a ring: refIdx 0, the last picture, is in slot
    # `newest`, refIdx k in the slot k before it. `references` of them are in use.
    cdef unsigned char[:, :, ::1] ref_y, ref_u, ref_v
    cdef int newest, references
    cdef int[::1] changed_at  # per macroblock: the last picture that may have changed it
    cdef signed char[::1] ref_idx  # per macroblock of this picture: its refIdx, -1 intra
    cdef int[::1] mv_x, mv_y  # per macroblock, in quarter pixels
    cdef unsigned char[::1] is_pcm  # per macroblock (its blocks count 16 coefficients)
    cdef unsigned char[::1] rbsp, payload
    cdef int frame_num, idr_pic_id, pictures
    cdef bytes sets  # the SPS and PPS, before every IDR picture

    def __init__(self, int width, int height, int cell, double rate):
        if width % 16 or height % 16 or width <= 0 or height <= 0:
            raise ValueError(f"a picture of whole macroblocks is needed, not {width}x{height}")
        self.width, self.height, self.cell, self.rate = width, height, cell, rate
        self.mb_width, self.mb_height = width // 16, height // 16
        self.reach_x = 4 * CELLS_ACROSS * cell
        self.reach_up, self.reach_down = 4 * CELLS_UP * cell, 4 * CELLS_DOWN * cell
        self.log2_mv_x = log2_max_mv_length(-self.reach_x, self.reach_x)
        self.log2_mv_y = log2_max_mv_length(-self.reach_up, self.reach_down)
        self.level = choose_level(
            self.mb_width, self.mb_height, rate, REFERENCES, max(self.reach_up, self.reach_x) / 4
        )
        self.ref_y = np.zeros((REFERENCES, height, width), np.uint8)
        self.ref_u = np.zeros((REFERENCES, height // 2, width // 2), np.uint8)
        self.ref_v = np.zeros((REFERENCES, height // 2, width // 2), np.uint8)
        macroblocks = self.mb_width * self.mb_height
        self.changed_at = np.zeros(macroblocks, np.int32)
        self.ref_idx = np.zeros(macroblocks, np.int8)
        self.mv_x = np.zeros(macroblocks, np.int32)
        self.mv_y = np.zeros(macroblocks, np.int32)
        self.is_pcm = np.zeros(macroblocks, np.uint8)
        # The most a picture can take: every macroblock raw, plus headers; escaping adds at
        # most one byte in three.
        capacity = macroblocks * (PCM_BYTES + 8) + 1024
        self.rbsp = np.zeros(capacity, np.uint8)
        self.payload = np.zeros(capacity + capacity // 2 + 16, np.uint8)
        self.pictures = 0
        self.sets = self._nal(NAL_SPS, self._sps()) + self._nal(NAL_PPS, self._pps())

    def parameter_sets(self) -> bytes:
        """The SPS and PPS, as Annex B NAL units: the first NAL units of every IDR access
        unit."""
        return self.sets

    def write(
        self,
        const unsigned char[:, ::1] y,
        const unsigned char[:, ::1] u,
        const unsigned char[:, ::1] v,
        const unsigned char[:, ::1] dirty,
        bint idr,
    ) -> bytes:
        """The access unit of the next picture (Annex B)."""
        if y.shape[0] != self.height or y.shape[1] != self.width:
            raise ValueError(f"a {self.width}x{self.height} picture is needed")
        if u.shape[0] * 2 != self.height or u.shape[1] * 2 != self.width or (
            v.shape[0] != u.shape[0] or v.shape[1] != u.shape[1]
        ):
            raise ValueError("chroma planes must be half the picture's size each way")
        if dirty.shape[0] != self.mb_height or dirty.shape[1] != self.mb_width:
            raise ValueError(f"the dirty map must be {self.mb_height}x{self.mb_width}")
        if not idr and self.pictures == 0:
            raise ValueError("the first picture must be IDR")
        cdef Bits w = bits_into(&self.rbsp[0])
        cdef bytes head
        if idr:
            self.frame_num = 0
            with nogil:
                self._idr_slice(&w, y, u, v)
            self.idr_pic_id = (self.idr_pic_id + 1) % 2  # consecutive IDRs must differ
            head = self.sets  # so that decoding can start at any IDR picture
        else:
            self.frame_num = (self.frame_num + 1) % (1 << LOG2_MAX_FRAME_NUM)
            with nogil:
                self._p_slice(&w, y, u, v, dirty)
            head = b""
        self.pictures += 1
        cdef int nal = NAL_IDR if idr else NAL_P
        cdef Py_ssize_t size
        with nogil:
            size = escape(&self.rbsp[0], w.size, &self.payload[0])
        return head + b"\x00\x00\x00\x01" + bytes([nal]) + bytes(self.payload[:size])

    # -- parameter sets ------------------------------------------------------------------

    cdef bytes _nal(self, int header, bytes rbsp):
        cdef unsigned char[::1] source = np.frombuffer(rbsp, np.uint8).copy()
        cdef unsigned char[::1] out = np.zeros(len(rbsp) * 2 + 4, np.uint8)
        cdef Py_ssize_t size = escape(&source[0], len(rbsp), &out[0])
        return b"\x00\x00\x00\x01" + bytes([header]) + bytes(out[:size])

    cdef bytes _sps(self):
        cdef unsigned char buffer[64]
        cdef Bits w = bits_into(buffer)
        put(&w, 66, 8)  # profile_idc: Baseline
        put(&w, 0b11000000, 8)  # constraint_set0 and set1: Constrained Baseline
        put(&w, self.level, 8)
        put_ue(&w, 0)  # seq_parameter_set_id
        put_ue(&w, LOG2_MAX_FRAME_NUM - 4)
        put_ue(&w, 2)  # pic_order_cnt_type: output order is decoding order
        put_ue(&w, REFERENCES)  # max_num_ref_frames
        put(&w, 0, 1)  # gaps_in_frame_num_value_allowed_flag
        put_ue(&w, self.mb_width - 1)
        put_ue(&w, self.mb_height - 1)
        put(&w, 1, 1)  # frame_mbs_only_flag
        put(&w, 1, 1)  # direct_8x8_inference_flag
        put(&w, 0, 1)  # frame_cropping_flag: the picture is whole macroblocks
        put(&w, 1, 1)  # vui_parameters_present_flag
        put(&w, 0, 1)  # aspect_ratio_info_present_flag: square pixels
        put(&w, 0, 1)  # overscan_info_present_flag
        put(&w, 1, 1)  # video_signal_type_present_flag
        put(&w, 5, 3)  # video_format: unspecified
        put(&w, 0, 1)  # video_full_range_flag: limited range
        put(&w, 1, 1)  # colour_description_present_flag
        put(&w, BT601, 8)  # colour_primaries
        put(&w, BT601, 8)  # transfer_characteristics
        put(&w, BT601, 8)  # matrix_coefficients
        put(&w, 0, 1)  # chroma_loc_info_present_flag
        put(&w, 0, 1)  # timing_info_present_flag: the container has the timing
        put(&w, 0, 1)  # nal_hrd_parameters_present_flag
        put(&w, 0, 1)  # vcl_hrd_parameters_present_flag
        put(&w, 0, 1)  # pic_struct_present_flag
        put(&w, 1, 1)  # bitstream_restriction_flag: a decoder may show each picture at once
        put(&w, 1, 1)  # motion_vectors_over_pic_boundaries_flag
        # The ranges are E.2.1's; choose_level keeps max_dec_frame_buffering within the
        # level's MaxDpbFrames (A.3.1 h).
        put_ue(&w, 0)  # max_bytes_per_pic_denom (0-16): no limit (an I_PCM picture is raw)
        put_ue(&w, 0)  # max_bits_per_mb_denom (0-16): no limit
        put_ue(&w, self.log2_mv_x)  # log2_max_mv_length_horizontal (0-15)
        put_ue(&w, self.log2_mv_y)  # log2_max_mv_length_vertical (0-15)
        put_ue(&w, 0)  # max_num_reorder_frames (0-max_dec_frame_buffering): output order
        put_ue(&w, REFERENCES)  # max_dec_frame_buffering (max_num_ref_frames-MaxDpbFrames)
        trailing_bits(&w)
        return bytes(buffer[: w.size])

    cdef bytes _pps(self):
        cdef unsigned char buffer[16]
        cdef Bits w = bits_into(buffer)
        put_ue(&w, 0)  # pic_parameter_set_id
        put_ue(&w, 0)  # seq_parameter_set_id
        put(&w, 0, 1)  # entropy_coding_mode_flag: CAVLC
        put(&w, 0, 1)  # bottom_field_pic_order_in_frame_present_flag
        put_ue(&w, 0)  # num_slice_groups_minus1
        put_ue(&w, 0)  # num_ref_idx_l0_default_active_minus1: slices say how many
        put_ue(&w, 0)  # num_ref_idx_l1_default_active_minus1
        put(&w, 0, 1)  # weighted_pred_flag
        put(&w, 0, 2)  # weighted_bipred_idc
        put_se(&w, 0)  # pic_init_qp_minus26 (no residual is ever coded)
        put_se(&w, 0)  # pic_init_qs_minus26
        put_se(&w, 0)  # chroma_qp_index_offset
        put(&w, 1, 1)  # deblocking_filter_control_present_flag: slices turn it off
        put(&w, 0, 1)  # constrained_intra_pred_flag
        put(&w, 0, 1)  # redundant_pic_cnt_present_flag
        trailing_bits(&w)
        return bytes(buffer[: w.size])

    # -- slices ----------------------------------------------------------------------------

    cdef void _idr_slice(
        self,
        Bits* w,
        const unsigned char[:, ::1] y,
        const unsigned char[:, ::1] u,
        const unsigned char[:, ::1] v,
    ) noexcept nogil:
        cdef int mbx, mby
        put_ue(w, 0)  # first_mb_in_slice
        put_ue(w, SLICE_I)
        put_ue(w, 0)  # pic_parameter_set_id
        put(w, 0, LOG2_MAX_FRAME_NUM)  # frame_num
        put_ue(w, self.idr_pic_id)
        put(w, 0, 1)  # no_output_of_prior_pics_flag
        put(w, 0, 1)  # long_term_reference_flag
        put_se(w, 0)  # slice_qp_delta
        put_ue(w, 1)  # disable_deblocking_filter_idc: off
        self.skipped = self.moved = self.predicted = self.raw = 0
        for mby in range(self.mb_height):
            for mbx in range(self.mb_width):
                self._intra_macroblock(w, y, u, v, mbx, mby, 0)
        trailing_bits(w)
        # Every reference before the IDR picture is gone, and each slot must be refilled
        # whole when its turn comes (see _keep_reference).
        self.changed_at[:] = self.pictures
        self.references = 0
        self._keep_reference(y, u, v)

    cdef void _p_slice(
        self,
        Bits* w,
        const unsigned char[:, ::1] y,
        const unsigned char[:, ::1] u,
        const unsigned char[:, ::1] v,
        const unsigned char[:, ::1] dirty,
    ) noexcept nogil:
        cdef int mbx, mby, index, run = 0, i, count
        cdef int pred_x, pred_y, skip_x, skip_y, dx, dy, ref
        cdef bint unchanged, found
        cdef int candidates_x[MAX_CANDIDATES]
        cdef int candidates_y[MAX_CANDIDATES]
        cdef int candidates_ref[MAX_CANDIDATES]
        put_ue(w, 0)  # first_mb_in_slice
        put_ue(w, SLICE_P)
        put_ue(w, 0)  # pic_parameter_set_id
        put(w, self.frame_num, LOG2_MAX_FRAME_NUM)
        put(w, 1, 1)  # num_ref_idx_active_override_flag: the references there are
        put_ue(w, self.references - 1)  # num_ref_idx_l0_active_minus1
        put(w, 0, 1)  # ref_pic_list_modification_flag_l0: the last picture first
        put(w, 0, 1)  # adaptive_ref_pic_marking_mode_flag: the sliding window
        put_se(w, 0)  # slice_qp_delta
        put_ue(w, 1)  # disable_deblocking_filter_idc: off
        self.skipped = self.moved = self.predicted = self.raw = 0
        for mby in range(self.mb_height):
            for mbx in range(self.mb_width):
                index = mby * self.mb_width + mbx
                unchanged = not dirty[mby, mbx] or self._same(y, u, v, mbx, mby, 0, 0, 0)
                self._skip_motion(mbx, mby, &skip_x, &skip_y)
                # P_Skip: the last picture's block at the motion the decoder predicts.
                if (skip_x == 0 and skip_y == 0 and unchanged) or (
                    (skip_x or skip_y) and self._same(y, u, v, mbx, mby, 0, skip_x, skip_y)
                ):
                    run += 1
                    self.skipped += 1
                    self._record_inter(index, 0, skip_x, skip_y)
                    continue
                put_ue(w, run)  # mb_skip_run before a coded macroblock
                run = 0
                found = unchanged
                dx = dy = ref = 0
                if not found:
                    count = self._candidates(
                        mbx, mby, candidates_x, candidates_y, candidates_ref
                    )
                    for i in range(count):
                        dx, dy, ref = candidates_x[i], candidates_y[i], candidates_ref[i]
                        if self._same(y, u, v, mbx, mby, ref, dx, dy):
                            found = True
                            break
                if found:  # P_L0_16x16: reference, motion, no residual
                    self._predict(mbx, mby, ref, &pred_x, &pred_y)
                    put_ue(w, 0)  # mb_type
                    if self.references == 2:  # ref_idx_l0: te(v), one inverted bit
                        put(w, 1 - ref, 1)
                    elif self.references > 2:
                        put_ue(w, ref)
                    put_se(w, dx - pred_x)  # mvd_l0
                    put_se(w, dy - pred_y)
                    put_ue(w, 0)  # coded_block_pattern: inter 0 is codeNum 0
                    self.moved += 1
                    self._record_inter(index, ref, dx, dy)
                    continue
                self._intra_macroblock(w, y, u, v, mbx, mby, INTRA_IN_P)
        if run:
            put_ue(w, run)
        trailing_bits(w)
        for mby in range(self.mb_height):
            for mbx in range(self.mb_width):
                if dirty[mby, mbx]:
                    self.changed_at[mby * self.mb_width + mbx] = self.pictures
        self._keep_reference(y, u, v)

    cdef void _keep_reference(
        self,
        const unsigned char[:, ::1] y,
        const unsigned char[:, ::1] u,
        const unsigned char[:, ::1] v,
    ) noexcept nogil:
        """The picture just written becomes refIdx 0, in the slot of the oldest. That slot
        holds the picture REFERENCES before (or one from before the IDR picture, whose
        macroblocks all count as changed since): only the macroblocks that may have changed
        since are copied, a few in a game's frame."""
        cdef int mbx, mby, row, slot = (self.newest + 1) % REFERENCES
        cdef int since = self.pictures - REFERENCES
        for mby in range(self.mb_height):
            for mbx in range(self.mb_width):
                if self.changed_at[mby * self.mb_width + mbx] <= since:
                    continue
                for row in range(mby * 16, mby * 16 + 16):
                    memcpy(&self.ref_y[slot, row, mbx * 16], &y[row, mbx * 16], 16)
                for row in range(mby * 8, mby * 8 + 8):
                    memcpy(&self.ref_u[slot, row, mbx * 8], &u[row, mbx * 8], 8)
                    memcpy(&self.ref_v[slot, row, mbx * 8], &v[row, mbx * 8], 8)
        self.newest = slot
        self.references = min(self.references + 1, REFERENCES)

    # -- macroblocks -----------------------------------------------------------------------

    cdef inline void _record_inter(self, int index, int ref, int mv_x, int mv_y) noexcept nogil:
        """What later blocks' predictions read of an inter block (skipped or moved)."""
        self.ref_idx[index] = ref
        self.mv_x[index], self.mv_y[index] = mv_x, mv_y
        self.is_pcm[index] = 0

    cdef void _intra_macroblock(
        self,
        Bits* w,
        const unsigned char[:, ::1] y,
        const unsigned char[:, ::1] u,
        const unsigned char[:, ::1] v,
        int mbx,
        int mby,
        int type_offset,
    ) noexcept nogil:
        """An intra block: an exact I_16x16 prediction if there is one, else its samples.
        For the neighbours' predictions it has refIdx -1 and no motion."""
        cdef int index = mby * self.mb_width + mbx
        cdef int mode = self._intra_mode(y, u, v, mbx, mby)
        self.ref_idx[index] = -1
        self.mv_x[index] = self.mv_y[index] = 0
        if mode >= 0:
            self._intra_block(w, mbx, mby, mode, type_offset)
        else:
            self._pcm_block(w, y, u, v, mbx, mby, type_offset)

    cdef bint _same(
        self,
        const unsigned char[:, ::1] y,
        const unsigned char[:, ::1] u,
        const unsigned char[:, ::1] v,
        int mbx,
        int mby,
        int ref,
        int mv_x,
        int mv_y,
    ) noexcept nogil:
        """Whether reference `ref`'s block at this motion (quarter pixels) is the picture's
        block: only whole, even pixel motions inside the picture are tried."""
        cdef int x = mbx * 16, top = mby * 16, row
        cdef int dx, dy, slot = (self.newest - ref + REFERENCES) % REFERENCES
        if mv_x % 8 or mv_y % 8 or ref >= self.references:
            return False
        if not (-self.reach_x <= mv_x <= self.reach_x
                and -self.reach_up <= mv_y <= self.reach_down):
            return False  # beyond what the SPS declares (never, for the motions tried)
        dx, dy = mv_x // 4, mv_y // 4
        if not (0 <= x + dx <= self.width - 16 and 0 <= top + dy <= self.height - 16):
            return False
        for row in range(16):
            if memcmp(&y[top + row, x], &self.ref_y[slot, top + dy + row, x + dx], 16):
                return False
        for row in range(8):
            if memcmp(&u[top // 2 + row, x // 2],
                      &self.ref_u[slot, top // 2 + dy // 2 + row, x // 2 + dx // 2], 8):
                return False
            if memcmp(&v[top // 2 + row, x // 2],
                      &self.ref_v[slot, top // 2 + dy // 2 + row, x // 2 + dx // 2], 8):
                return False
        return True

    cdef void _predict(self, int mbx, int mby, int ref, int* pred_x, int* pred_y) noexcept nogil:
        """The motion vector prediction of a 16x16 partition on reference `ref` (8.4.1.3),
        from the neighbours A (left), B (above) and C (above right; D, above left, where C
        is outside the picture). An intra or missing neighbour has refIdx -1, motion 0."""
        cdef int w = self.mb_width
        cdef int index = mby * w + mbx
        cdef bint has_a = mbx > 0, has_b = mby > 0
        cdef bint has_c = mby > 0 and mbx < w - 1
        cdef int ref_a = -1, ref_b = -1, ref_c = -1
        cdef int ax = 0, ay = 0, bx = 0, by = 0, cx = 0, cy = 0
        cdef int n, matches
        if has_a:
            n = index - 1
            ref_a, ax, ay = self.ref_idx[n], self.mv_x[n], self.mv_y[n]
        if has_b:
            n = index - w
            ref_b, bx, by = self.ref_idx[n], self.mv_x[n], self.mv_y[n]
        if has_c:
            n = index - w + 1
            ref_c, cx, cy = self.ref_idx[n], self.mv_x[n], self.mv_y[n]
        elif mbx > 0 and mby > 0:  # D stands in for C
            has_c = True
            n = index - w - 1
            ref_c, cx, cy = self.ref_idx[n], self.mv_x[n], self.mv_y[n]
        if not has_b and not has_c and has_a:  # the top row: A's motion alone
            ref_b = ref_c = ref_a
            bx, by, cx, cy = ax, ay, ax, ay
        matches = (ref_a == ref) + (ref_b == ref) + (ref_c == ref)
        if matches == 1:  # the one neighbour on the same reference
            if ref_a == ref:
                pred_x[0], pred_y[0] = ax, ay
            elif ref_b == ref:
                pred_x[0], pred_y[0] = bx, by
            else:
                pred_x[0], pred_y[0] = cx, cy
        else:
            pred_x[0], pred_y[0] = median3(ax, bx, cx), median3(ay, by, cy)

    cdef void _skip_motion(self, int mbx, int mby, int* skip_x, int* skip_y) noexcept nogil:
        """A P_Skip's motion (8.4.1.1): none at the picture's top or left edge or beside a
        neighbour A or B at rest on the last picture, else the prediction on refIdx 0."""
        cdef int w = self.mb_width
        cdef int a = mby * w + mbx - 1, b = (mby - 1) * w + mbx
        if (
            mbx == 0
            or mby == 0
            or (self.ref_idx[a] == 0 and self.mv_x[a] == 0 and self.mv_y[a] == 0)
            or (self.ref_idx[b] == 0 and self.mv_x[b] == 0 and self.mv_y[b] == 0)
        ):
            skip_x[0] = skip_y[0] = 0
        else:
            self._predict(mbx, mby, 0, skip_x, skip_y)

    cdef int _candidates(self, int mbx, int mby, int* xs, int* ys, int* refs) noexcept nogil:
        """Motions worth trying, in quarter pixels, on the last picture: the neighbours'
        (a stack dropping after a line clear moves as one), then whole NES cells: one to
        four rows down (a falling piece, a dropped stack), one column either way, one row
        up. Then the older references where they stand (a flash's pictures repeat)."""
        cdef int count = 0, index = mby * self.mb_width + mbx, k
        cdef int cell = 4 * self.cell
        if mbx > 0 and self.ref_idx[index - 1] == 0:
            xs[count], ys[count], refs[count] = self.mv_x[index - 1], self.mv_y[index - 1], 0
            count += 1
        if mby > 0 and self.ref_idx[index - self.mb_width] == 0:
            k = index - self.mb_width
            xs[count], ys[count], refs[count] = self.mv_x[k], self.mv_y[k], 0
            count += 1
        for k in range(1, CELLS_UP + 1):  # content that moved down comes from above
            xs[count], ys[count], refs[count] = 0, -k * cell, 0
            count += 1
        xs[count], ys[count], refs[count] = CELLS_ACROSS * cell, 0, 0
        count += 1
        xs[count], ys[count], refs[count] = -CELLS_ACROSS * cell, 0, 0
        count += 1
        xs[count], ys[count], refs[count] = 0, CELLS_DOWN * cell, 0
        count += 1
        for k in range(1, REFERENCES):
            xs[count], ys[count], refs[count] = 0, 0, k
            count += 1
        return count

    cdef int _intra_mode(
        self,
        const unsigned char[:, ::1] y,
        const unsigned char[:, ::1] u,
        const unsigned char[:, ::1] v,
        int mbx,
        int mby,
    ) noexcept nogil:
        """An I_16x16 prediction that gives this block exactly, as luma mode * 4 + chroma
        mode, or -1. The neighbours' samples are the picture's: every block before this one
        decodes to exactly what it was given."""
        cdef int luma = -1, chroma = -1, mode, i
        # DC first: the flat areas, whatever their neighbours; then vertical, horizontal
        cdef int[3] luma_modes = [2, 0, 1]
        cdef int[3] chroma_modes = [0, 2, 1]
        for i in range(3):
            mode = luma_modes[i]
            if self._luma_exact(y, mbx, mby, mode):
                luma = mode
                break
        if luma < 0:
            return -1
        for i in range(3):
            mode = chroma_modes[i]
            if self._chroma_exact(u, mbx, mby, mode) and self._chroma_exact(v, mbx, mby, mode):
                chroma = mode
                break
        if chroma < 0:
            return -1
        return luma * 4 + chroma

    cdef bint _luma_exact(self, const unsigned char[:, ::1] y, int mbx, int mby,
                          int mode) noexcept nogil:
        cdef int x0 = mbx * 16, y0 = mby * 16, i, total = 0, value
        cdef bint left = mbx > 0, top = mby > 0
        if mode == 0:  # vertical
            return top and repeats_above(y, x0, y0, 16)
        if mode == 1:  # horizontal
            return left and repeats_left(y, x0, y0, 16)
        # DC: the mean of the neighbours there are (8.3.3.3)
        for i in range(16):
            if top:
                total += y[y0 - 1, x0 + i]
            if left:
                total += y[y0 + i, x0 - 1]
        if left and top:
            value = (total + 16) >> 5
        elif left or top:
            value = (total + 8) >> 4
        else:
            value = 128
        return flat(y, x0, y0, 16, value)

    cdef bint _chroma_exact(self, const unsigned char[:, ::1] c, int mbx, int mby,
                            int mode) noexcept nogil:
        cdef int x0 = mbx * 8, y0 = mby * 8, i, bx, by, total_top, total_left, value
        cdef bint left = mbx > 0, top = mby > 0
        if mode == 2:  # vertical
            return top and repeats_above(c, x0, y0, 8)
        if mode == 1:  # horizontal
            return left and repeats_left(c, x0, y0, 8)
        # DC, for each 4x4 block (8.3.4.1-3): the blocks on the diagonal average both sides
        # when there are both; the top right one prefers the samples above, the bottom left
        # one those to the left.
        for by in range(0, 8, 4):
            for bx in range(0, 8, 4):
                total_top = total_left = 0
                for i in range(4):
                    if top:
                        total_top += c[y0 - 1, x0 + bx + i]
                    if left:
                        total_left += c[y0 + by + i, x0 - 1]
                if bx == by and top and left:
                    value = (total_top + total_left + 4) >> 3
                elif top and (by == 0 or not left):
                    value = (total_top + 2) >> 2
                elif left:
                    value = (total_left + 2) >> 2
                else:
                    value = 128
                if not flat(c, x0 + bx, y0 + by, 4, value):
                    return False
        return True

    cdef void _intra_block(self, Bits* w, int mbx, int mby, int mode,
                           int type_offset) noexcept nogil:
        """I_16x16 with no residual: its luma DC block is coded with no coefficients."""
        cdef int index = mby * self.mb_width + mbx
        cdef int n_a = 0, n_b = 0, n_c
        put_ue(w, type_offset + I16_CBP0 + mode // 4)  # mb_type: the luma prediction mode
        put_ue(w, mode % 4)  # intra_chroma_pred_mode
        put_se(w, 0)  # mb_qp_delta
        # coeff_token of Intra16x16DCLevel with no coefficients: its table follows nC, the
        # coefficients of the neighbouring blocks (9.2.1): 16 in an I_PCM block, else 0 here.
        if mbx > 0:
            n_a = 16 if self.is_pcm[index - 1] else 0
        if mby > 0:
            n_b = 16 if self.is_pcm[index - self.mb_width] else 0
        if mbx > 0 and mby > 0:
            n_c = (n_a + n_b + 1) >> 1
        else:
            n_c = n_a + n_b  # the one there is, or 0
        if n_c < 2:
            put(w, 0b1, 1)
        elif n_c < 4:
            put(w, 0b11, 2)
        elif n_c < 8:
            put(w, 0b1111, 4)
        else:
            put(w, 0b000011, 6)
        self.is_pcm[index] = 0
        self.predicted += 1

    cdef void _pcm_block(
        self,
        Bits* w,
        const unsigned char[:, ::1] y,
        const unsigned char[:, ::1] u,
        const unsigned char[:, ::1] v,
        int mbx,
        int mby,
        int type_offset,
    ) noexcept nogil:
        cdef int row, x = mbx * 16, top = mby * 16
        cdef unsigned char* out
        put_ue(w, type_offset + I_PCM_IN_I)
        align_zero(w)  # pcm_alignment_zero_bit
        out = w.data + w.size
        for row in range(16):
            memcpy(out + row * 16, &y[top + row, x], 16)
        out += 256
        for row in range(8):
            memcpy(out + row * 8, &u[top // 2 + row, x // 2], 8)
        out += 64
        for row in range(8):
            memcpy(out + row * 8, &v[top // 2 + row, x // 2], 8)
        w.size += PCM_BYTES
        self.is_pcm[mby * self.mb_width + mbx] = 1
        self.raw += 1
