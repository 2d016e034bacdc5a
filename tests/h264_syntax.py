"""A reader of the H.264 syntax the tests check (Rec. ITU-T H.264 (08/2021) clause 7): NAL units
of Annex B access units and of .mp4 samples, emulation prevention (7.4.1), Exp-Golomb codes
(9.1), the sequence and picture parameter sets with the VUI (7.3.2.1, 7.3.2.2, E.1) and the
slice header (7.3.3) as far as a Baseline stream with frame_mbs_only_flag goes. Written from
the standard, not from nesbot's writer, so the tests read the stream as a decoder would."""

from dataclasses import dataclass
from pathlib import Path

NAL_SLICE, NAL_IDR, NAL_SPS, NAL_PPS = 1, 5, 7, 8


def nal_type(nal: bytes) -> int:
    return nal[0] & 0x1F


def annexb_nal_units(stream: bytes) -> list[bytes]:
    """The NAL units of an Annex B byte stream, without their start codes. A NAL unit never
    ends in a zero byte (its rbsp_stop_one_bit comes last, and cabac_zero_words are not in
    Baseline), so zeros before a start code are leading_zero_8bits / zero_byte (B.1.2)."""
    starts = []
    position = stream.find(b"\x00\x00\x01")
    while position >= 0:
        starts.append(position + 3)
        position = stream.find(b"\x00\x00\x01", position + 3)
    units = []
    for index, start in enumerate(starts):
        end = starts[index + 1] - 3 if index + 1 < len(starts) else len(stream)
        units.append(bytes(stream[start:end]).rstrip(b"\x00"))
    return units


def rbsp_of(nal: bytes) -> bytes:
    """The RBSP of a NAL unit: its payload after the one-byte header with every
    emulation_prevention_three_byte (a 0x03 after two zero bytes) taken out (7.3.1)."""
    out = bytearray()
    zeros = 0
    for byte in nal[1:]:
        if zeros >= 2 and byte == 3:
            zeros = 0
            continue
        out.append(byte)
        zeros = zeros + 1 if byte == 0 else 0
    return bytes(out)


class BitReader:
    """Reads an RBSP bit by bit: u(n), ue(v), se(v) (9.1), and its trailing bits."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.position = 0  # in bits

    def u(self, count: int) -> int:
        value = 0
        for _ in range(count):
            if self.position >= 8 * len(self.data):
                raise ValueError("read past the end of the RBSP")
            byte = self.data[self.position >> 3]
            value = (value << 1) | ((byte >> (7 - (self.position & 7))) & 1)
            self.position += 1
        return value

    def ue(self) -> int:
        leading = 0
        while self.u(1) == 0:
            leading += 1
            if leading > 31:
                raise ValueError("an Exp-Golomb code longer than 32 bits")
        return (1 << leading) - 1 + self.u(leading)

    def se(self) -> int:
        code = self.ue()
        return (code + 1) // 2 if code % 2 else -(code // 2)

    def trailing_bits(self) -> None:
        """rbsp_trailing_bits(): a one, zeros to the byte's end, and nothing after."""
        if self.u(1) != 1:
            raise ValueError("no rbsp_stop_one_bit")
        while self.position % 8:
            if self.u(1) != 0:
                raise ValueError("an rbsp_alignment_zero_bit is 1")
        if self.position != 8 * len(self.data):
            raise ValueError(f"{len(self.data) - self.position // 8} bytes after the trailing bits")


@dataclass
class Hrd:
    cpb_count: int
    bit_rates: list[int]  # BitRate[SchedSelIdx] in bits/s (E-71)
    cpb_sizes: list[int]  # CpbSize[SchedSelIdx] in bits (E-72)
    cbr: list[bool]


def read_hrd(r: BitReader) -> Hrd:
    """hrd_parameters() (E.1.2)."""
    count = r.ue() + 1
    bit_rate_scale, cpb_size_scale = r.u(4), r.u(4)
    rates, sizes, cbr = [], [], []
    for _ in range(count):
        rates.append((r.ue() + 1) << (6 + bit_rate_scale))
        sizes.append((r.ue() + 1) << (4 + cpb_size_scale))
        cbr.append(bool(r.u(1)))
    r.u(5 * 4)  # the lengths of the SEI messages' delay fields, and time_offset_length
    return Hrd(count, rates, sizes, cbr)


@dataclass
class Vui:
    aspect_ratio_idc: int | None = None
    video_format: int | None = None
    video_full_range_flag: int | None = None
    colour: tuple[int, int, int] | None = None  # primaries, transfer, matrix
    timing: tuple[int, int, int] | None = None  # num_units_in_tick, time_scale, fixed rate
    nal_hrd: Hrd | None = None
    vcl_hrd: Hrd | None = None
    low_delay_hrd_flag: int | None = None
    pic_struct_present_flag: int = 0
    bitstream_restriction: dict[str, int] | None = None


def read_vui(r: BitReader) -> Vui:
    """vui_parameters() (E.1.1)."""
    vui = Vui()
    if r.u(1):  # aspect_ratio_info_present_flag
        vui.aspect_ratio_idc = r.u(8)
        if vui.aspect_ratio_idc == 255:  # Extended_SAR
            r.u(16), r.u(16)
    if r.u(1):  # overscan_info_present_flag
        r.u(1)
    if r.u(1):  # video_signal_type_present_flag
        vui.video_format, vui.video_full_range_flag = r.u(3), r.u(1)
        if r.u(1):  # colour_description_present_flag
            vui.colour = (r.u(8), r.u(8), r.u(8))
    if r.u(1):  # chroma_loc_info_present_flag
        r.ue(), r.ue()
    if r.u(1):  # timing_info_present_flag
        vui.timing = (r.u(32), r.u(32), r.u(1))
    if r.u(1):
        vui.nal_hrd = read_hrd(r)
    if r.u(1):
        vui.vcl_hrd = read_hrd(r)
    if vui.nal_hrd or vui.vcl_hrd:
        vui.low_delay_hrd_flag = r.u(1)
    vui.pic_struct_present_flag = r.u(1)
    if r.u(1):  # bitstream_restriction_flag
        names = (
            "max_bytes_per_pic_denom",
            "max_bits_per_mb_denom",
            "log2_max_mv_length_horizontal",
            "log2_max_mv_length_vertical",
            "max_num_reorder_frames",
            "max_dec_frame_buffering",
        )
        restriction = {"motion_vectors_over_pic_boundaries_flag": r.u(1)}
        restriction.update((name, r.ue()) for name in names)
        vui.bitstream_restriction = restriction
    return vui


@dataclass
class Sps:
    profile_idc: int
    constraint_flags: int  # constraint_set0_flag in the top bit, then set1 ... set5, 2 zeros
    level_idc: int
    sps_id: int
    log2_max_frame_num: int
    pic_order_cnt_type: int
    max_num_ref_frames: int
    gaps_in_frame_num_value_allowed_flag: int
    width_mbs: int  # PicWidthInMbs
    height_mbs: int  # FrameHeightInMbs (frame_mbs_only_flag is 1)
    frame_mbs_only_flag: int
    crop: tuple[int, int, int, int]  # left, right, top, bottom offsets (0 when not cropped)
    vui: Vui | None

    def constraint_set(self, n: int) -> bool:
        return bool(self.constraint_flags & (0x80 >> n))

    @property
    def size(self) -> tuple[int, int]:
        """The cropped frame's width and height in luma samples (4:2:0, frames: crop units
        of 2, 7-19 to 7-22)."""
        left, right, top, bottom = self.crop
        return (16 * self.width_mbs - 2 * (left + right), 16 * self.height_mbs - 2 * (top + bottom))


HIGH_PROFILES = (100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135)


def parse_sps(nal: bytes) -> Sps:
    """seq_parameter_set_rbsp() (7.3.2.1.1) of a profile without the chroma fields (as
    Baseline), its VUI and trailing bits."""
    assert nal_type(nal) == NAL_SPS, nal[:1]
    r = BitReader(rbsp_of(nal))
    profile, flags, level, sps_id = r.u(8), r.u(8), r.u(8), r.ue()
    if profile in HIGH_PROFILES:
        raise ValueError(f"profile_idc {profile}: chroma and scaling fields not read here")
    log2_max_frame_num = r.ue() + 4
    poc_type = r.ue()
    if poc_type == 0:
        r.ue()
    elif poc_type == 1:
        r.u(1), r.se(), r.se()
        for _ in range(r.ue()):
            r.se()
    refs, gaps = r.ue(), r.u(1)
    width_mbs, height_units = r.ue() + 1, r.ue() + 1
    frame_mbs_only = r.u(1)
    if not frame_mbs_only:
        r.u(1)  # mb_adaptive_frame_field_flag
    r.u(1)  # direct_8x8_inference_flag
    crop = (r.ue(), r.ue(), r.ue(), r.ue()) if r.u(1) else (0, 0, 0, 0)
    vui = read_vui(r) if r.u(1) else None
    r.trailing_bits()
    height_mbs = height_units * (2 - frame_mbs_only)
    return Sps(
        profile, flags, level, sps_id, log2_max_frame_num, poc_type, refs, gaps,
        width_mbs, height_mbs, frame_mbs_only, crop, vui,
    )  # fmt: skip


@dataclass
class Pps:
    pps_id: int
    sps_id: int
    entropy_coding_mode_flag: int
    num_slice_groups: int
    num_ref_idx_l0_default_active: int
    weighted_pred_flag: int
    weighted_bipred_idc: int
    deblocking_filter_control_present_flag: int
    constrained_intra_pred_flag: int
    redundant_pic_cnt_present_flag: int


def parse_pps(nal: bytes) -> Pps:
    """pic_parameter_set_rbsp() (7.3.2.2) without slice groups or the High profiles' tail."""
    assert nal_type(nal) == NAL_PPS, nal[:1]
    r = BitReader(rbsp_of(nal))
    pps_id, sps_id, entropy, _ = r.ue(), r.ue(), r.u(1), r.u(1)
    groups = r.ue() + 1
    if groups != 1:
        raise ValueError("slice groups are not read here")
    l0, _ = r.ue() + 1, r.ue() + 1
    weighted, bipred = r.u(1), r.u(2)
    r.se(), r.se(), r.se()  # pic_init_qp_minus26, pic_init_qs_minus26, chroma_qp_index_offset
    deblocking, constrained_intra, redundant = r.u(1), r.u(1), r.u(1)
    r.trailing_bits()
    return Pps(
        pps_id, sps_id, entropy, groups, l0, weighted, bipred, deblocking, constrained_intra,
        redundant,
    )  # fmt: skip


@dataclass
class SliceHeader:
    first_mb_in_slice: int
    slice_type: int  # 0-9; % 5: 0 P, 1 B, 2 I, 3 SP, 4 SI
    pps_id: int
    frame_num: int
    idr_pic_id: int | None
    num_ref_idx_l0_active: int | None  # P slices


def parse_slice_header(nal: bytes, sps: Sps, pps: Pps) -> SliceHeader:
    """The start of slice_header() (7.3.3) of an I or P slice of a frame, up to the reference
    lists: pic_order_cnt_type 2 and no redundant_pic_cnt are all that is read here."""
    assert nal_type(nal) in (NAL_SLICE, NAL_IDR), nal[:1]
    assert sps.frame_mbs_only_flag and sps.pic_order_cnt_type == 2
    assert not pps.redundant_pic_cnt_present_flag
    r = BitReader(rbsp_of(nal))
    first_mb, slice_type, pps_id = r.ue(), r.ue(), r.ue()
    frame_num = r.u(sps.log2_max_frame_num)
    idr_pic_id = r.ue() if nal_type(nal) == NAL_IDR else None
    active = None
    if slice_type % 5 == 0:  # P
        active = r.ue() + 1 if r.u(1) else pps.num_ref_idx_l0_default_active
    return SliceHeader(first_mb, slice_type, pps_id, frame_num, idr_pic_id, active)


def mp4_samples(path: Path) -> tuple[list[bytes], list[list[bytes]], list[bool]]:
    """The parameter sets of an .mp4's avcC (ISO/IEC 14496-15), and each sample of its first
    video track as its NAL units (length-prefixed in the file), with its keyframe flag."""
    import av

    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        config = bytes(stream.codec_context.extradata or b"")
        if not config or config[0] != 1:
            raise ValueError(f"{path}: no avcC in the sample description")
        length_size = (config[4] & 3) + 1
        parameter_sets = []
        position = 5
        for count_mask in (0x1F, 0xFF):  # SPSs, then PPSs
            count = config[position] & count_mask
            position += 1
            for _ in range(count):
                size = int.from_bytes(config[position : position + 2], "big")
                parameter_sets.append(config[position + 2 : position + 2 + size])
                position += 2 + size
        samples, keyframes = [], []
        for packet in container.demux(stream):
            if packet.size == 0:
                continue  # the demuxer's end of stream
            sample, nals, position = bytes(packet), [], 0
            while position < len(sample):
                size = int.from_bytes(sample[position : position + length_size], "big")
                position += length_size
                if size == 0 or position + size > len(sample):
                    raise ValueError(f"{path}: sample {len(samples)}: bad NAL unit length")
                nals.append(sample[position : position + size])
                position += size
            samples.append(nals)
            keyframes.append(packet.is_keyframe)
    return parameter_sets, samples, keyframes
