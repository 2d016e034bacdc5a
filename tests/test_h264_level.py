"""The .mp4's H.264 stream keeps the level its SPS declares (Rec. ITU-T H.264 (08/2021),
Annex A.3.1 with Table A-1), whatever the pictures are, and says the rest of its SPS right.

The level nesbot.show.video.h264 chooses must hold in the worst case: an IDR picture of noise is all
I_PCM (384 bytes of samples a macroblock), and as the first access unit its bytes must stay
within 384 * Max(PicSizeInMbs, fR * MaxMBPS) / MinCR. The bit rate and CPB size limits cannot
hold in that worst case (such pictures 60 times a second are hundreds of Mbit/s); they are
checked on a recorded game with the HRD's CPB model (Annex C), with the parameters a stream
without HRD parameters is held to (E.2.2) and the longest initial removal delay D.2.1 allows.
The streams are read with tests/h264_syntax.py, written from the standard."""

import itertools
import math
from dataclasses import dataclass
from pathlib import Path

import av
import numpy as np
import pytest
from h264_syntax import (
    NAL_IDR,
    NAL_PPS,
    NAL_SLICE,
    NAL_SPS,
    Sps,
    annexb_nal_units,
    mp4_samples,
    nal_type,
    parse_pps,
    parse_slice_header,
    parse_sps,
)

from nesbot.nes.screen_layout import CELL
from nesbot.show.overlay import Renderer
from nesbot.show.pace import NTSC_RATE
from nesbot.show.video.h264 import LEVELS, H264Writer, choose_level, worst_access_unit_bytes

RATE = float(NTSC_RATE)  # 39,375,000 / 655,171 pictures a second
REFERENCES = 4


@dataclass(frozen=True)
class Limits:
    """A row of Table A-1 (Rec. ITU-T H.264 (08/2021)), typed here apart from the writer's."""

    max_mbps: int  # macroblocks/s
    max_fs: int  # macroblocks
    max_dpb_mbs: int  # macroblocks
    max_br: int  # 1000 bit/s for Baseline's VCL HRD, 1200 bit/s for its NAL HRD (E.2.2)
    max_cpb: int  # 1000 or 1200 bits likewise
    max_vmv_r: int  # luma samples: vertical motion from -MaxVmvR to MaxVmvR - 0.25
    min_cr: int
    max_mvs_per_2mb: int | None  # "-": no limit


TABLE_A1 = {
    10: Limits(1485, 99, 396, 64, 175, 64, 2, None),
    11: Limits(3000, 396, 900, 192, 500, 128, 2, None),  # 1.1 (1b also has level_idc 11)
    12: Limits(6000, 396, 2376, 384, 1000, 128, 2, None),
    13: Limits(11880, 396, 2376, 768, 2000, 128, 2, None),
    20: Limits(11880, 396, 2376, 2000, 2000, 128, 2, None),
    21: Limits(19800, 792, 4752, 4000, 4000, 256, 2, None),
    22: Limits(20250, 1620, 8100, 4000, 4000, 256, 2, None),
    30: Limits(40500, 1620, 8100, 10000, 10000, 256, 2, 32),
    31: Limits(108000, 3600, 18000, 14000, 14000, 512, 4, 16),
    32: Limits(216000, 5120, 20480, 20000, 20000, 512, 4, 16),
    40: Limits(245760, 8192, 32768, 20000, 25000, 512, 4, 16),
    41: Limits(245760, 8192, 32768, 50000, 62500, 512, 2, 16),
    42: Limits(522240, 8704, 34816, 50000, 62500, 512, 2, 16),
    50: Limits(589824, 22080, 110400, 135000, 135000, 512, 2, 16),
    51: Limits(983040, 36864, 184320, 240000, 240000, 512, 2, 16),
    52: Limits(2073600, 36864, 184320, 240000, 240000, 512, 2, 16),
    60: Limits(4177920, 139264, 696320, 240000, 240000, 8192, 2, 16),
    61: Limits(8355840, 139264, 696320, 480000, 480000, 8192, 2, 16),
    62: Limits(16711680, 139264, 696320, 800000, 800000, 8192, 2, 16),
}


def f_r(level: int) -> float:
    """A.3's fR for frames."""
    return 1 / 300 if level >= 60 else 1 / 172


def first_unit_cap(level: int, macroblocks: int) -> float:
    """A.3.1 c: the bytes of access unit 0, its removal time taken as its nominal one."""
    limits = TABLE_A1[level]
    return 384 * max(macroblocks, f_r(level) * limits.max_mbps) / limits.min_cr


def later_unit_cap(level: int, rate: float) -> float:
    """A.3.1 d: the bytes of access unit n > 0, removed 1 / rate after the one before."""
    limits = TABLE_A1[level]
    return 384 * limits.max_mbps / rate / limits.min_cr


def max_dpb_frames(level: int, macroblocks: int) -> int:
    return min(TABLE_A1[level].max_dpb_mbs // macroblocks, 16)


def failed_limits(
    level: int, width_mbs: int, height_mbs: int, rate: float, motion: float, largest: int
) -> list[str]:
    """The items of A.3.1 that a stream of this size and rate, with REFERENCES reference
    frames, motion vector components of at most `motion` luma samples and access units of at
    most `largest` bytes, breaks at this level (m and n hold at every level: see the test)."""
    limits, macroblocks = TABLE_A1[level], width_mbs * height_mbs
    checks = {
        "a/b MaxMBPS": max(macroblocks / limits.max_mbps, f_r(level)) <= 1 / rate,
        "c MinCR first access unit": largest <= first_unit_cap(level, macroblocks),
        "d MinCR later access units": largest <= later_unit_cap(level, rate),
        "e MaxFS": macroblocks <= limits.max_fs,
        "f/g sides": max(width_mbs, height_mbs) <= math.sqrt(8 * limits.max_fs),
        "h MaxDpbFrames": max_dpb_frames(level, macroblocks) >= REFERENCES,
        "k MaxVmvR": motion <= limits.max_vmv_r - 0.25,
        "l horizontal motion": motion <= (8191.75 if level >= 60 else 2047.75),
    }
    return [name for name, holds in checks.items() if not holds]


def picture_size(scale: int, overlay: bool) -> tuple[int, int]:
    renderer = Renderer(scale, panel=overlay)
    return renderer.width, renderer.height


# The level at every scale, and the limits the level below it breaks: the first access
# unit's MinCR decides throughout (an all-I_PCM picture in fR * MaxMBPS macroblocks' time).
LEVEL_AT = {
    (1, False): 32,
    (2, False): 42,
    (3, False): 51,
    (4, False): 52,
    (5, False): 60,
    (6, False): 61,
    (7, False): 61,
    (8, False): 62,
    (1, True): 41,
    (2, True): 42,
    (3, True): 52,
    (4, True): 52,
    (5, True): 61,
    (6, True): 61,
    (7, True): 62,
    (8, True): 62,
}


def test_the_writers_table_is_table_a1() -> None:
    """Two copies of Table A-1, typed apart: the writer's and this test's."""
    assert [row[0] for row in LEVELS] == list(TABLE_A1)
    for level, mbps, fs, dpb, br, cpb, vmv_r, min_cr, mvs in LEVELS:
        assert TABLE_A1[level] == Limits(mbps, fs, dpb, br, cpb, vmv_r, min_cr, mvs or None)


def noise(rng, width: int, height: int):
    """yuv420p planes of noise in 1-254: no sample is 0, as in the limited range the SPS
    says (BT.601 reserves 0 and 255), so no two zero bytes among the I_PCM samples call for
    an emulation-prevention byte."""
    return tuple(
        rng.integers(1, 255, shape, np.uint8)
        for shape in ((height, width), (height // 2, width // 2), (height // 2, width // 2))
    )


@pytest.mark.parametrize("overlay", [False, True])
@pytest.mark.parametrize("scale", range(1, 9))
def test_the_level_holds_for_the_worst_pictures(scale: int, overlay: bool) -> None:
    """At every scale, with and without the panel: the level is the lowest at which an
    all-I_PCM picture (noise) fits as the first access unit and as a later IDR or P picture,
    with every other limit of A.3.1 the writer decides. Items m and n hold at any level: a
    macroblock has one motion vector (P_L0_16x16, P_Skip) or none, so two have at most 2, within
    every MaxMvsPer2Mb; an I_PCM macroblock_layer() is 9 + at most 7 + 3072 bits, within 3200."""
    width, height = picture_size(scale, overlay)
    writer = H264Writer(width, height, CELL * scale, RATE)
    width_mbs, height_mbs = width // 16, height // 16
    macroblocks = width_mbs * height_mbs
    # The furthest motion the writer may use, in luma samples, from what it says of it.
    motion = max(writer.reach_up, writer.reach_x, writer.reach_down) / 4
    level = writer.level
    assert level == choose_level(width_mbs, height_mbs, RATE, REFERENCES, motion)
    assert level == LEVEL_AT[(scale, overlay)]

    rng = np.random.default_rng(scale)
    everywhere = np.ones((height_mbs, width_mbs), np.uint8)
    sizes = []
    for idr in (True, False, True):  # the first access unit, a P picture, a later IDR
        unit = writer.write(*noise(rng, width, height), everywhere, idr)
        assert writer.raw == macroblocks  # every macroblock I_PCM: the worst there is
        nals = annexb_nal_units(unit)
        expected = [NAL_SPS, NAL_PPS, NAL_IDR] if idr else [NAL_SLICE]
        assert [nal_type(nal) for nal in nals] == expected
        sizes.append(sum(map(len, nals)))  # NumBytesInNALunit, summed
    # The bound the writer's level rests on is the real worst, give or take a few bytes.
    worst = worst_access_unit_bytes(macroblocks)
    assert worst - 64 - 2 * macroblocks <= max(sizes) <= worst
    assert sizes[0] <= first_unit_cap(level, macroblocks)
    assert max(sizes[1:]) <= later_unit_cap(level, RATE)

    assert failed_limits(level, width_mbs, height_mbs, RATE, motion, worst) == []
    below = list(TABLE_A1)[list(TABLE_A1).index(level) - 1]
    assert "c MinCR first access unit" in failed_limits(
        below, width_mbs, height_mbs, RATE, motion, worst
    )

    sps = parse_sps(annexb_nal_units(writer.parameter_sets())[0])
    assert sps.level_idc == level
    assert sps.size == (width, height)
    check_motion_fields(sps, writer)


def check_motion_fields(sps: Sps, writer: H264Writer) -> None:
    """log2_max_mv_length_* in E.2.1's range 0-15, and wide enough for the motion vectors the
    writer may use (its reach, in quarter samples) but no wider than they need."""
    restriction = sps.vui.bitstream_restriction
    for name, low, high in (
        ("log2_max_mv_length_horizontal", -writer.reach_x, writer.reach_x),
        ("log2_max_mv_length_vertical", -writer.reach_up, writer.reach_down),
    ):
        n = restriction[name]
        assert 0 <= n <= 15, name
        assert -(2**n) <= low and high <= 2**n - 1, name
        assert n == 0 or low < -(2 ** (n - 1)) or high > 2 ** (n - 1) - 1, name


def cpb_peak(sizes: list[int], rate: float, bit_rate: float, cpb_size: float) -> float:
    """The CPB of the HRD (C.1) fed at `bit_rate` (VBR: cbr_flag is inferred 0) with access
    units of `sizes` bits, one removed every 1 / rate seconds from the initial removal delay
    on, in one buffering period: initial_cpb_removal_delay is the most D.2.1 allows,
    90000 * CpbSize / BitRate (a stream without buffering period SEI says none; this is the
    HRD an application would run it in). Fails on an underflow (an access unit not all there
    at its removal time) or an overflow; returns the fullest the CPB gets, in bits (just
    before a removal)."""
    delay = math.floor(90000 * cpb_size / bit_rate) / 90000
    starts, ends = [], []
    for n, bits in enumerate(sizes):
        removal = delay + n / rate  # tr,n(n) (C-7, C-9) = tr(n) (C-10)
        start = 0.0 if n == 0 else max(ends[-1], removal - delay)  # tai (C-3, C-4)
        starts.append(start)
        ends.append(start + bits / bit_rate)  # taf (C-6)
        assert ends[-1] <= removal, f"CPB underflow at access unit {n}"
    peak, removed, arrived, first_partial = 0.0, 0, 0, 0
    for n in range(len(sizes)):
        removal = delay + n / rate
        while first_partial < len(sizes) and ends[first_partial] <= removal:
            arrived += sizes[first_partial]
            first_partial += 1
        partial = 0.0
        if first_partial < len(sizes) and starts[first_partial] < removal:
            partial = (removal - starts[first_partial]) * bit_rate
        fullness = arrived + partial - removed
        assert fullness <= cpb_size, f"CPB overflow before removing access unit {n}"
        peak = max(peak, fullness)
        removed += sizes[n]
    return peak


def test_cpb_model_sees_a_burst() -> None:
    """The CPB model fails a stream whose pictures come too fast for the bit rate, and counts
    a buffer's worth of bits as full."""
    with pytest.raises(AssertionError, match="underflow"):
        cpb_peak([10_000] * 100, 10.0, 50_000.0, 100_000.0)
    assert cpb_peak([1_000] * 100, 10.0, 20_000.0, 100_000.0) <= 100_000
    assert cpb_peak([50_000] + [1] * 9, 10.0, 100_000.0, 100_000.0) == pytest.approx(50_000, 0.01)


@dataclass
class Recorded:
    scale: int
    overlay: bool
    path: Path
    frames: int


KEYFRAME_INTERVAL = 500  # four IDR pictures in the 2,000 frames
FRAMES = 2000


def test_a_recorded_game_keeps_its_level(emulator, new_game, tmp_path: Path, monkeypatch) -> None:
    """2,000 frames of a bot's level-19 game through the .mp4 path (muxing.Encoder) at the
    default scale 3, with and without the overlay, an IDR picture every 500 frames: SPS and PPS
    before every IDR picture, the SPS's fields, and every limit of the level in the stream:
    MinCR per access unit (IDR pictures too), the CPB at the level's bit rate and size (the
    statistical bound), frame size, macroblock rate, DPB, motion vectors (decoded by FFmpeg)."""
    from nesbot.bot.policy import Bot
    from nesbot.show.video import muxing
    from nesbot.show.watch import GameWatch

    monkeypatch.setattr(muxing, "KEYFRAME_INTERVAL", KEYFRAME_INTERVAL)
    new_game(19, seed=7)
    bot = Bot()
    watch = GameWatch(emulator.ram, bot)
    emulator.observers.append(watch)
    records = [
        Recorded(3, overlay, tmp_path / f"game-{overlay}.mp4", FRAMES) for overlay in (False, True)
    ]
    encoders = [muxing.Encoder(r.path, r.scale, r.overlay) for r in records]
    try:
        for _ in range(FRAMES):
            emulator.step(bot(emulator.ram, emulator.frame))
            info = watch.info()
            for encoder in encoders:
                encoder.encode(encoder.prepare(emulator.screen, info))
    finally:
        emulator.observers.clear()
        for encoder in encoders:
            encoder.finish()
    for record in records:
        check_recorded_stream(record)


def check_recorded_stream(record: Recorded) -> None:
    where = f"scale {record.scale}, overlay {record.overlay}"
    width, height = picture_size(record.scale, record.overlay)
    parameter_sets, samples, keyframes = mp4_samples(record.path)
    assert len(samples) == record.frames, where

    # SPS and PPS first in every IDR access unit, the same each time, as in the avcC.
    sps_nal, pps_nal = samples[0][0], samples[0][1]
    assert parameter_sets == [sps_nal, pps_nal], where
    idrs = [n for n in range(record.frames) if n % KEYFRAME_INTERVAL == 0]
    for n, nals in enumerate(samples):
        if n in idrs:
            assert [nal_type(nal) for nal in nals] == [NAL_SPS, NAL_PPS, NAL_IDR], (where, n)
            assert nals[:2] == [sps_nal, pps_nal], (where, n)
            assert keyframes[n], (where, n)
        else:
            assert [nal_type(nal) for nal in nals] == [NAL_SLICE], (where, n)
            assert not keyframes[n], (where, n)

    sps, pps = parse_sps(sps_nal), parse_pps(pps_nal)
    level = sps.level_idc
    assert level == LEVEL_AT[(record.scale, record.overlay)], where
    limits = TABLE_A1[level]
    # Constrained Baseline (A.2.1.1): profile_idc 66 with constraint_set1_flag (set0 too:
    # Baseline decoders take it); CAVLC, one slice group, no weighting, no redundant pictures.
    assert sps.profile_idc == 66 and sps.constraint_set(0) and sps.constraint_set(1), where
    assert sps.constraint_flags & 0x03 == 0, where  # reserved_zero_2bits
    assert not sps.constraint_set(3), where  # level 1b is not meant
    assert pps.entropy_coding_mode_flag == 0 and pps.num_slice_groups == 1, where
    assert pps.weighted_pred_flag == 0 and pps.weighted_bipred_idc == 0, where
    assert pps.redundant_pic_cnt_present_flag == 0, where
    assert (pps.sps_id, pps.pps_id) == (sps.sps_id, 0), where
    # The picture: whole macroblocks, so no cropping.
    assert sps.frame_mbs_only_flag == 1 and sps.crop == (0, 0, 0, 0), where
    assert (16 * sps.width_mbs, 16 * sps.height_mbs) == sps.size == (width, height), where
    macroblocks = sps.width_mbs * sps.height_mbs
    # The VUI: BT.601 limited range, no timing (the container's), no HRD parameters.
    vui = sps.vui
    assert vui is not None, where
    assert (vui.video_format, vui.video_full_range_flag, vui.colour) == (5, 0, (6, 6, 6)), where
    assert vui.timing is None and vui.nal_hrd is None and vui.vcl_hrd is None, where
    assert vui.pic_struct_present_flag == 0, where
    restriction = vui.bitstream_restriction
    assert restriction is not None, where
    assert 0 <= restriction["max_bytes_per_pic_denom"] <= 16, where
    assert 0 <= restriction["max_bits_per_mb_denom"] <= 16, where
    for name in ("log2_max_mv_length_horizontal", "log2_max_mv_length_vertical"):
        assert 0 <= restriction[name] <= 15, (where, name)
    buffering = restriction["max_dec_frame_buffering"]
    assert 0 <= restriction["max_num_reorder_frames"] <= buffering, where
    # DPB (A.3.1 h, E.2.1): references within max_dec_frame_buffering within MaxDpbFrames.
    assert sps.max_num_ref_frames == REFERENCES <= buffering, where
    assert buffering <= max_dpb_frames(level, macroblocks), where
    # Frame size and rate (A.3.1 a, b, e, f, g).
    assert macroblocks <= limits.max_fs, where
    assert max(sps.width_mbs, sps.height_mbs) <= math.sqrt(8 * limits.max_fs), where
    assert max(macroblocks / limits.max_mbps, f_r(level)) <= 1 / RATE, where

    # Slice headers: frame_num counts every (reference) picture from 0 at each IDR with no
    # gap, consecutive IDR pictures differ in idr_pic_id, and no P slice uses more reference
    # pictures than there are since the IDR picture, or than max_num_ref_frames.
    idr_pic_ids = []
    since_idr = 0
    for n, nals in enumerate(samples):
        header = parse_slice_header(nals[-1], sps, pps)
        assert header.first_mb_in_slice == 0 and header.pps_id == 0, (where, n)
        if n in idrs:
            assert header.slice_type in (2, 7) and header.frame_num == 0, (where, n)
            idr_pic_ids.append(header.idr_pic_id)
            since_idr = 0
        else:
            since_idr += 1
            assert header.slice_type in (0, 5), (where, n)
            assert header.frame_num == since_idr % (1 << sps.log2_max_frame_num), (where, n)
            assert header.num_ref_idx_l0_active <= min(since_idr, sps.max_num_ref_frames)
    assert all(a != b for a, b in itertools.pairwise(idr_pic_ids)), where

    # MinCR (A.3.1 c, d): every access unit's bytes, IDR pictures too.
    unit_bytes = [sum(map(len, nals)) for nals in samples]
    first_cap, later_cap = first_unit_cap(level, macroblocks), later_unit_cap(level, RATE)
    assert unit_bytes[0] <= first_cap, where
    assert max(unit_bytes[1:]) <= later_cap, where
    # The CPB (A.3.1 i, j; C.3): Type I counts the VCL NAL units at 1000 * MaxBR into
    # 1000 * MaxCPB bits; Type II the whole byte stream (a 4-byte start code a NAL unit, as
    # the writer makes it) at 1200 * MaxBR into 1200 * MaxCPB bits.
    vcl_bits = [8 * sum(len(nal) for nal in nals if nal_type(nal) in (1, 5)) for nals in samples]
    stream_bits = [8 * sum(4 + len(nal) for nal in nals) for nals in samples]
    peaks = {}
    for name, bits, factor in (("VCL", vcl_bits, 1000), ("NAL", stream_bits, 1200)):
        size = factor * limits.max_cpb
        peaks[name] = cpb_peak(bits, RATE, factor * limits.max_br, size) / size

    # Motion vectors as FFmpeg decodes them: each macroblock one 16x16 motion or none (A.3.1 m),
    # each within MaxVmvR and the horizontal limit (k, l) and within log2_max_mv_length_*.
    mv_x, mv_y, pictures = [0], [0], 0
    with av.open(str(record.path)) as container:
        stream = container.streams.video[0]
        stream.codec_context.options = {"flags2": "+export_mvs"}
        for frame in container.decode(stream):
            pictures += 1
            vectors = frame.side_data.get("MOTION_VECTORS")
            if vectors is None:
                continue
            found = vectors.to_ndarray()
            assert set(found["w"]) <= {16} and set(found["h"]) <= {16}, where
            assert set(found["motion_scale"]) <= {4}, where  # quarter samples
            mv_x += [found["motion_x"].min(), found["motion_x"].max()]
            mv_y += [found["motion_y"].min(), found["motion_y"].max()]
    assert pictures == record.frames, where
    n_x = restriction["log2_max_mv_length_horizontal"]
    n_y = restriction["log2_max_mv_length_vertical"]
    assert -(2**n_x) <= min(mv_x) and max(mv_x) <= 2**n_x - 1, where
    assert -(2**n_y) <= min(mv_y) and max(mv_y) <= 2**n_y - 1, where
    assert -4 * limits.max_vmv_r <= min(mv_y) and max(mv_y) <= 4 * limits.max_vmv_r - 1, where
    assert max(-min(mv_x), max(mv_x)) <= 4 * 2047.75, where
    assert min(mv_y) < 0, where  # the falling pieces were seen as motion

    largest = max(range(record.frames), key=unit_bytes.__getitem__)
    print(
        f"\n{where}: level {level / 10}; access unit 0: {unit_bytes[0]} bytes of "
        f"{first_cap:.0f} ({unit_bytes[0] / first_cap:.1%}); largest: access unit {largest}, "
        f"{unit_bytes[largest]} of {later_cap:.0f} ({unit_bytes[largest] / later_cap:.1%}); "
        f"IDR access units {[unit_bytes[n] for n in idrs]}; CPB peak fullness VCL "
        f"{peaks['VCL']:.2%}, NAL {peaks['NAL']:.2%}; motion x {min(mv_x)}..{max(mv_x)}, "
        f"y {min(mv_y)}..{max(mv_y)} quarter samples (log2 {n_x}, {n_y})"
    )
