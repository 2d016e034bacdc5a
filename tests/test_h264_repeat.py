"""Repeated frames written as all-skip P slices (nesbot.h264_repeat): the bit-level pieces,
which streams take them, and videos with runs of repeats that FFmpeg's decoder reads
without complaint, each repeat the exact picture before it, across IDR pictures and
frame_num wrapping."""

import dataclasses
from pathlib import Path

import av
import av.logging
import numpy as np
import pytest

from nesbot import video
from nesbot.h264_repeat import (
    BitReader,
    BitWriter,
    RepeatSplicer,
    escape,
    nal_units,
    stream_params,
    unescape,
)
from nesbot.video import Encoder

# Repeat runs as a game has them: single repeats while a piece falls at level 19, longer
# ones in the line-clear and entry delays.
RUNS = [1, 1, 3, 1, 8, 1, 10, 2, 1, 12, 1, 6, 1, 1, 3]


def test_exp_golomb_codes() -> None:
    writer = BitWriter()
    for value in (0, 1, 2, 3, 7, 2159):
        writer.ue(value)
    for value in (0, 1, -1, 5, -26):
        writer.se(value)
    writer.bits(9, 300)
    reader = BitReader(writer.rbsp())
    assert [reader.ue() for _ in range(6)] == [0, 1, 2, 3, 7, 2159]
    assert [reader.se() for _ in range(5)] == [0, 1, -1, 5, -26]
    assert reader.bits(9) == 300
    assert reader.bits(1) == 1  # rbsp_stop_one_bit
    small = BitWriter()
    small.ue(0)
    small.ue(1)
    small.ue(3)
    # 1, 010, 00100 (H.264 9.1), then the stop bit and zeros
    assert small.rbsp() == bytes([0b1_010_0010, 0b0_1_000000])


def test_emulation_prevention() -> None:
    assert escape(b"\x00\x00\x00\x00\x00\x01\x00\x00\x04") == (
        b"\x00\x00\x03\x00\x00\x03\x00\x01\x00\x00\x04"
    )
    rng = np.random.default_rng(3)
    for _ in range(200):  # zeros and small bytes often, as in real slices
        rbsp = bytes(rng.choice([0, 0, 0, 1, 2, 3, 4, 255], rng.integers(1, 40)).astype(np.uint8))
        escaped = escape(rbsp)
        assert b"\x00\x00\x00" not in escaped and b"\x00\x00\x01" not in escaped
        assert b"\x00\x00\x02" not in escaped
        assert unescape(escaped) == rbsp


def encoder_extradata(path: Path, options: dict[str, str]) -> bytes:
    """x264's SPS and PPS for these options (an MP4 asks for them apart from the frames)."""
    with av.open(str(path), "w", format="mp4") as container:
        stream = container.add_stream("libx264", rate=60)
        stream.width, stream.height, stream.pix_fmt = 64, 48, "yuv420p"
        stream.options = options
        for packet in stream.encode(av.VideoFrame(64, 48, "yuv420p")):
            container.mux(packet)
        extradata = stream.codec_context.extradata
        for packet in stream.encode(None):
            container.mux(packet)
    return extradata


def test_which_streams_take_repeats(tmp_path: Path) -> None:
    ours = video.FORMATS[".mp4"].codec_options
    ultrafast = stream_params(encoder_extradata(tmp_path / "ours.mp4", ours))
    assert ultrafast is not None
    assert ultrafast.macroblocks == 4 * 3
    assert ultrafast.frame_num_bits == 4
    # Lossless x264 writes a High 4:4:4 SPS, with the chroma format and bit depths.
    lossless = stream_params(encoder_extradata(tmp_path / "qp0.mp4", {**ours, "qp": "0"}))
    assert lossless == ultrafast
    refused = {
        "CABAC": {**ours, "x264-params": "cabac=1"},
        "three reference pictures": {**ours, "preset": "medium", "profile": "baseline"},
        "B-frames, so POC lsb in each slice": {"preset": "medium"},
    }
    for options in refused.values():
        assert stream_params(encoder_extradata(tmp_path / "other.mp4", options)) is None
    assert stream_params(b"") is None


def picture(rng: np.random.Generator) -> np.ndarray:
    """A screen of 8x8 tiles in a few colours, different every time."""
    tiles = rng.integers(0, 4, (30, 32))
    palette = np.array([[0, 0, 0], [200, 76, 12], [252, 252, 252], [0, 88, 248]], np.uint8)
    return np.repeat(np.repeat(palette[tiles], 8, axis=0), 8, axis=1)


def frames_with_repeats(seed: int, runs: list[int]) -> tuple[list[np.ndarray], list[bool]]:
    """Screens, and for each whether it repeats the one before."""
    rng = np.random.default_rng(seed)
    frames, repeats = [], []
    for run in runs:
        frames.append(picture(rng))
        repeats.append(False)
        frames.extend([frames[-1]] * run)
        repeats.extend([True] * run)
    return frames, repeats


def encode(path: Path, frames: list[np.ndarray]) -> Encoder:
    encoder = Encoder(path, 1, overlay=False)
    for frame in frames:
        encoder.encode(encoder.prepare(frame, None))
    encoder.finish()
    return encoder


def decode_logged(path: Path) -> tuple[list[np.ndarray], list[str]]:
    """The decoded yuv420p pictures, and what the H.264 decoder logged about them (a
    frame_num gap, for one, is said only at the debug level)."""
    av.logging.set_level(av.logging.DEBUG)
    try:
        with av.logging.Capture() as logged, av.open(str(path)) as container:
            pictures = [frame.to_ndarray(format="yuv420p") for frame in container.decode(video=0)]
    finally:
        av.logging.set_level(None)
    said = [
        message
        for _level, name, message in logged
        if name == "h264"
        and not message.startswith(("nal_unit_type", "Decoding VUI"))
        and "chosen by get_format" not in message
        and not message.startswith("Reinit context")
    ]
    return pictures, said


@pytest.fixture
def short_gop(monkeypatch):
    """x264 with an IDR picture every 7 coded ones, so that a short video crosses several
    and frame_num (4 bits here) wraps between them."""
    mp4 = video.FORMATS[".mp4"]
    options = {**mp4.codec_options, "g": "7"}
    monkeypatch.setitem(video.FORMATS, ".mp4", dataclasses.replace(mp4, codec_options=options))


def test_repeats_decode_as_the_picture_before(tmp_path: Path, short_gop) -> None:
    frames, repeats = frames_with_repeats(5, RUNS * 2)
    path = tmp_path / "repeats.mp4"
    encoder = encode(path, frames)
    assert encoder.repeats == sum(repeats)
    pictures, said = decode_logged(path)
    assert said == []
    assert len(pictures) == len(frames)
    for index, repeat in enumerate(repeats[1:], start=1):
        if repeat:
            assert np.array_equal(pictures[index], pictures[index - 1]), index
        else:
            assert not np.array_equal(pictures[index], pictures[index - 1]), index
    # x264's own pictures decode as x264 made them: fed only the frames that are not
    # repeats, it gives the same pictures bit for bit, so nothing refers past a repeat.
    news = [frame for frame, repeat in zip(frames, repeats, strict=True) if not repeat]
    alone, _ = decode_logged(encode(tmp_path / "alone.mp4", news).path)
    coded = [p for p, r in zip(pictures, repeats, strict=True) if not r]
    assert all(np.array_equal(a, b) for a, b in zip(alone, coded, strict=True))
    with av.open(str(path)) as container:
        packets = [packet for packet in container.demux(video=0) if packet.size]
    frame_ticks = 655_171  # the stream counts 1/39,375,000 s
    assert [packet.pts for packet in packets] == [n * frame_ticks for n in range(len(frames))]
    idr_times = [packet.pts // frame_ticks for packet in packets if packet.is_keyframe]
    assert len(idr_times) >= 4
    pictures_between_idrs = max(np.diff(idr_times))
    assert pictures_between_idrs > 2**encoder._splicer.params.frame_num_bits  # it wrapped


def test_a_frame_num_gap_is_caught(tmp_path: Path, short_gop, monkeypatch) -> None:
    """The check above sees a broken count: a repeat that skips a frame_num is logged."""
    original = RepeatSplicer.repeat
    calls = []

    def skipping(self: RepeatSplicer) -> bytes:
        calls.append(1)
        if len(calls) == 5:
            original(self)
        return original(self)

    monkeypatch.setattr(RepeatSplicer, "repeat", skipping)
    frames, _ = frames_with_repeats(5, RUNS)
    path = tmp_path / "gap.mp4"
    encode(path, frames)
    _, said = decode_logged(path)
    assert any("gap" in message for message in said)


def test_nal_units_split_annex_b() -> None:
    stream = b"\x00\x00\x00\x01\x67\x42\x00\x00\x01\x68\xce\x00\x00\x00\x01\x65\x88\x80"
    assert nal_units(stream) == [b"\x67\x42", b"\x68\xce", b"\x65\x88\x80"]
