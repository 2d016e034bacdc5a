"""Repeated frames in an H.264 stream without the encoder: all-skip P slices, built here.

About half of a game's frames repeat the one before (a piece falls a row every 2 frames at
level 19; the line-clear and entry delays hold the screen still), and x264 spends as long on
a repeat as on any frame: it weighs every macroblock. A picture that repeats the last is, in
H.264, a P slice whose macroblocks are all skipped (P_Skip: copy the reference, motion 0,
no residual), a dozen bytes that need no encoder. `RepeatSplicer` writes those and fits
x264's own pictures around them:

* Each repeat is a reference picture, so that the picture after it, which x264 coded
  against the last picture x264 saw, predicts from identical samples. A picture's
  ``frame_num`` counts the reference pictures since the last IDR, so x264's pictures get
  theirs rewritten to count the repeats too (a field of fixed width at the start of each
  slice header).
* The skip's motion is 0 for every macroblock: the first row and column have no
  neighbours to predict from, every other one predicts from skipped neighbours with motion
  0 (H.264 8.4.1.1). So a repeat decodes to exactly the last picture.
* Only the stream shapes this needs are taken: CAVLC, picture order from frame_num
  (``pic_order_cnt_type`` 2, which x264 uses without B-frames), one reference picture
  (with more, x264's pictures could refer to one that the repeats pushed out of the list),
  frames not fields, colour planes coded together, no weighted prediction, no redundant
  pictures, one slice group. x264 at ``ultrafast`` writes that; for any other stream
  `stream_params` returns None and the caller encodes repeats.

Access units are Annex B byte streams (start codes), as FFmpeg's libx264 hands them out;
the MP4 muxer rewrites them to length prefixes.
"""

import re
from dataclasses import dataclass

START_CODE = b"\x00\x00\x00\x01"
_SPS, _PPS, _SLICE, _IDR_SLICE = 7, 8, 1, 5
_P_SLICE_ALL = 5  # slice_type 5: P, and every slice of the picture is P
_SKIP_NAL_HEADER = 0x40 | _SLICE  # nal_ref_idc 2 (a reference picture), a non-IDR slice
# Profiles whose SPS carries chroma format and bit depths (H.264 7.3.2.1.1).
_HIGH_PROFILES = {100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135}
_EMULATION_PREVENTION = re.compile(rb"\x00\x00(?=[\x00-\x03])")


class BitReader:
    """Reads an RBSP bit by bit: fixed-width fields and Exp-Golomb codes."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.position = 0  # in bits

    def bits(self, count: int) -> int:
        value = 0
        for _ in range(count):
            byte = self.data[self.position >> 3]
            value = (value << 1) | ((byte >> (7 - (self.position & 7))) & 1)
            self.position += 1
        return value

    def ue(self) -> int:
        zeros = 0
        while self.bits(1) == 0:
            zeros += 1
        return (1 << zeros) - 1 + self.bits(zeros)

    def se(self) -> int:
        code = self.ue()
        return (code + 1) // 2 if code & 1 else -(code // 2)


class BitWriter:
    """Builds an RBSP: fixed-width fields, Exp-Golomb codes and the trailing bits."""

    def __init__(self) -> None:
        self.value = 0
        self.length = 0  # in bits

    def bits(self, count: int, value: int) -> None:
        self.value = (self.value << count) | (value & ((1 << count) - 1))
        self.length += count

    def ue(self, value: int) -> None:
        code = value + 1
        self.bits(2 * code.bit_length() - 1, code)  # the leading zeros, then the code

    def se(self, value: int) -> None:
        self.ue(2 * value - 1 if value > 0 else -2 * value)

    def rbsp(self) -> bytes:
        """The bits with rbsp_trailing_bits: a one, then zeros to a whole byte."""
        self.bits(1, 1)
        pad = -self.length % 8
        self.bits(pad, 0)
        return self.value.to_bytes(self.length // 8, "big")


def escape(rbsp: bytes) -> bytes:
    """A NAL unit's payload from its RBSP: 0x03 after two zero bytes that precede 0-3."""
    return _EMULATION_PREVENTION.sub(b"\x00\x00\x03", rbsp)


def unescape(payload: bytes) -> bytes:
    """The RBSP of a NAL unit's payload (inverse of `escape`)."""
    return payload.replace(b"\x00\x00\x03", b"\x00\x00")


def nal_units(access_unit: bytes) -> list[bytes]:
    """The NAL units of an Annex B byte stream, without start codes or trailing zeros."""
    units = []
    for part in access_unit.split(b"\x00\x00\x01")[1:]:
        units.append(part.rstrip(b"\x00"))  # a zero before the next start code is its own
    return units


@dataclass(frozen=True)
class StreamParams:
    """What a slice header needs from the stream's SPS and PPS."""

    frame_num_bits: int
    pps_id: int
    deblocking_control: bool  # slices say how to deblock
    macroblocks: int  # per picture


def stream_params(extradata: bytes | None) -> StreamParams | None:
    """The parameters from the encoder's SPS and PPS (Annex B), or None when the stream is
    not one whose repeats `RepeatSplicer` can write (see the module docstring)."""
    if not extradata:
        return None
    units = {unit[0] & 0x1F: unit for unit in nal_units(extradata) if unit}
    if _SPS not in units or _PPS not in units:
        return None
    sps = BitReader(unescape(units[_SPS][1:]))
    profile = sps.bits(8)
    sps.bits(16)  # constraint flags, level
    sps.ue()  # seq_parameter_set_id
    if profile in _HIGH_PROFILES:
        # 4:4:4 with its colour planes coded apart would need a skip slice for each
        if sps.ue() == 3 and sps.bits(1):  # chroma_format_idc, separate_colour_plane_flag
            return None
        sps.ue()  # bit depths
        sps.ue()
        sps.bits(1)  # qpprime_y_zero_transform_bypass_flag
        if sps.bits(1):  # scaling matrices: not parsed
            return None
    frame_num_bits = sps.ue() + 4
    if sps.ue() != 2:  # pic_order_cnt_type: only 2 derives the order from frame_num alone
        return None
    if sps.ue() > 1:  # max_num_ref_frames: with more, the encoder's later pictures could
        return None  # refer past the repeats to pictures the repeats pushed out
    sps.bits(1)  # gaps_in_frame_num_value_allowed_flag
    width_mbs = sps.ue() + 1
    height_map_units = sps.ue() + 1
    if not sps.bits(1):  # frame_mbs_only_flag
        return None
    pps = BitReader(unescape(units[_PPS][1:]))
    pps_id = pps.ue()
    pps.ue()  # seq_parameter_set_id
    if pps.bits(1):  # entropy_coding_mode_flag: CABAC
        return None
    pps.bits(1)  # bottom_field_pic_order_in_frame_present_flag
    if pps.ue():  # num_slice_groups_minus1
        return None
    pps.ue()  # num_ref_idx_l0_default_active_minus1: a skip refers to index 0 anyway
    pps.ue()
    weighted_prediction = pps.bits(1)
    pps.bits(2)  # weighted_bipred_idc
    pps.se()  # pic_init_qp_minus26, pic_init_qs_minus26, chroma_qp_index_offset
    pps.se()
    pps.se()
    deblocking_control = bool(pps.bits(1))
    pps.bits(1)  # constrained_intra_pred_flag
    redundant_pictures = pps.bits(1)
    if weighted_prediction or redundant_pictures:
        return None
    return StreamParams(frame_num_bits, pps_id, deblocking_control, width_mbs * height_map_units)


class UnsupportedPicture(ValueError):
    """An encoder's picture that repeats cannot follow (a picture no other refers to)."""


class RepeatSplicer:
    """Numbers the pictures of one stream: x264's, passed through `coded`, and repeats of
    the last picture, made by `repeat`, in display order."""

    def __init__(self, params: StreamParams) -> None:
        self.params = params
        self._frame_num_mask = (1 << params.frame_num_bits) - 1
        self._frame_num = 0  # of the last picture

    def coded(self, access_unit: bytes) -> bytes:
        """An encoder's access unit with its slices' frame_num counting the repeats."""
        units = nal_units(access_unit)
        slices = [unit for unit in units if unit[0] & 0x1F in (_SLICE, _IDR_SLICE)]
        if not slices:
            return access_unit
        if any(unit[0] & 0x60 == 0 for unit in slices):  # nal_ref_idc 0
            raise UnsupportedPicture("a picture that is not a reference cannot be repeated")
        if slices[0][0] & 0x1F == _IDR_SLICE:
            self._frame_num = 0  # an IDR picture starts the count again (and says 0)
            return access_unit
        self._frame_num = (self._frame_num + 1) & self._frame_num_mask
        rewritten = [
            self._with_frame_num(unit) if unit[0] & 0x1F == _SLICE else unit for unit in units
        ]
        return b"".join(START_CODE + unit for unit in rewritten)

    def repeat(self) -> bytes:
        """An access unit that shows the last picture again: one slice, every macroblock
        skipped."""
        self._frame_num = (self._frame_num + 1) & self._frame_num_mask
        params = self.params
        header = BitWriter()
        header.ue(0)  # first_mb_in_slice
        header.ue(_P_SLICE_ALL)
        header.ue(params.pps_id)
        header.bits(params.frame_num_bits, self._frame_num)
        header.bits(1, 0)  # num_ref_idx_active_override_flag
        header.bits(1, 0)  # ref_pic_list_modification_flag_l0
        header.bits(1, 0)  # adaptive_ref_pic_marking_mode_flag: the sliding window
        header.se(0)  # slice_qp_delta
        if params.deblocking_control:
            header.ue(1)  # disable_deblocking_filter_idc: nothing to filter in a copy
        header.ue(params.macroblocks)  # mb_skip_run: all of them
        return START_CODE + bytes([_SKIP_NAL_HEADER]) + escape(header.rbsp())

    def _with_frame_num(self, unit: bytes) -> bytes:
        rbsp = bytearray(unescape(unit[1:]))
        reader = BitReader(bytes(rbsp))
        reader.ue()  # first_mb_in_slice
        reader.ue()  # slice_type
        reader.ue()  # pic_parameter_set_id
        start, width = reader.position, self.params.frame_num_bits
        for bit in range(width):
            position = start + bit
            mask = 0x80 >> (position & 7)
            if (self._frame_num >> (width - 1 - bit)) & 1:
                rbsp[position >> 3] |= mask
            else:
                rbsp[position >> 3] &= ~mask
        return unit[:1] + escape(bytes(rbsp))
