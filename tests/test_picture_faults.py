"""Pictures and videos, however large or broken: read, or refused in one NesbotError, and a
picture above MAX_PICTURE_PIXELS refused before it is decoded."""

import struct
import zlib
from pathlib import Path

import av
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nesbot
from nesbot.errors import NesbotError
from nesbot.rating import screen
from nesbot.rating.read_screen import image_size
from nesbot.show.video.decoding import MAX_PICTURE_PIXELS

SAFE = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _png_header(width: int, height: int) -> bytes:
    """A PNG's signature and IHDR chunk (8-bit RGB), and nothing of its pixels."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    return (
        b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + chunk + struct.pack(">I", zlib.crc32(chunk))
    )


def _jpeg_header(width: int, height: int) -> bytes:
    """A JPEG's start, an APP0 segment and a baseline frame header, and nothing after."""
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 17, 8, height, width, 3) + bytes(9)
    return b"\xff\xd8" + app0 + sof


def _bmp_header(width: int, height: int) -> bytes:
    """A BMP's file header and BITMAPINFOHEADER (24-bit; a negative height: top-down), its
    pixels said to be far past the file's end: a header and no picture."""
    info = struct.pack("<IiiHHIIiiII", 40, width, height, 1, 24, 0, 0, 2835, 2835, 0, 0)
    return b"BM" + struct.pack("<IHHI", 54, 0, 0, 2**31 - 1) + info


def _webp_header(width: int, height: int) -> bytes:
    """An extended WebP's RIFF header and VP8X chunk (canvas sizes 1 to 2**24)."""
    canvas = (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little")
    return b"RIFF" + struct.pack("<I", 22) + b"WEBPVP8X" + struct.pack("<I", 10) + bytes(4) + canvas


HEADERS = {"png": _png_header, "jpg": _jpeg_header, "bmp": _bmp_header, "webp": _webp_header}


def test_the_header_says_a_pictures_size(tmp_path):
    for kind, header in HEADERS.items():
        (tmp_path / f"a.{kind}").write_bytes(header(640, 480))
        assert image_size(tmp_path / f"a.{kind}") == (640, 480)
    (tmp_path / "down.bmp").write_bytes(_bmp_header(640, -480))
    assert image_size(tmp_path / "down.bmp") == (640, 480)
    (tmp_path / "a.tiff").write_bytes(b"II*\x00" + bytes(60))
    assert image_size(tmp_path / "a.tiff") is None


def test_a_picture_whose_size_only_decoding_tells_is_refused(tmp_path, rom):
    path = tmp_path / "a.tiff"
    path.write_bytes(b"II*\x00" + bytes(60))
    with pytest.raises(NesbotError, match=r"not an image nesbot reads \(PNG, JPEG, BMP or WebP"):
        nesbot.read_screen(path, rom=rom)


@pytest.mark.parametrize("kind", HEADERS)
def test_a_huge_picture_is_refused_before_it_is_decoded(tmp_path, rom, kind):
    """The issue's 20000 x 20000 picture ran past ten minutes at 4.9 GB: its header is
    enough to refuse it (this file holds no pixels at all)."""
    path = tmp_path / f"huge.{kind}"
    path.write_bytes(HEADERS[kind](20000, 20000))
    with pytest.raises(NesbotError, match=r"its pictures are 20000 x 20000, above the"):
        nesbot.read_screen(path, rom=rom)


def test_a_huge_array_is_refused(rom):
    picture = np.zeros((2161, 3841, 3), np.uint8)
    assert picture.shape[0] * picture.shape[1] > MAX_PICTURE_PIXELS
    with pytest.raises(NesbotError, match="2161"):
        nesbot.read_screen(picture, rom=rom)


def test_a_video_of_huge_pictures_is_refused_before_decoding(tmp_path, rom):
    path = tmp_path / "huge.mp4"
    with av.open(str(path), "w") as out:
        stream = out.add_stream("libx264", rate=30, options={"preset": "ultrafast"})
        stream.width, stream.height, stream.pix_fmt = 4096, 2304, "yuv420p"
        frame = av.VideoFrame.from_ndarray(np.zeros((2304, 4096, 3), np.uint8), format="rgb24")
        for packet in [*stream.encode(frame), *stream.encode()]:
            out.mux(packet)
    for read in (lambda: nesbot.read_screen(path, rom=rom), lambda: nesbot.rate(path, rom=rom)):
        with pytest.raises(NesbotError, match=r"4096 x 2304, above the 8,294,400 pixels"):
            read()


@SAFE
@given(
    kind=st.sampled_from(list(HEADERS)),
    width=st.integers(0, 2**31 - 1),
    height=st.integers(0, 2**31 - 1),
    tail=st.binary(max_size=64),
)
def test_any_picture_header_is_read_or_refused(tmp_path_factory, rom, kind, width, height, tail):
    path = tmp_path_factory.mktemp("p") / f"x.{kind}"
    bits = {"jpg": 16, "webp": 24}.get(kind, 31)  # what the header's fields hold
    head = HEADERS[kind](max(1, width % 2**bits), max(1, height % 2**bits))
    path.write_bytes(head + tail)
    with pytest.raises(NesbotError) as raised:  # no picture in these files: never a reading
        nesbot.read_screen(path, rom=rom)
    assert "\n" not in str(raised.value) and str(path) in str(raised.value)


@SAFE
@given(data=st.binary(max_size=2048), suffix=st.sampled_from([".png", ".jpg", ".mp4", ".mkv"]))
def test_any_bytes_as_a_picture_or_video_are_one_error(tmp_path_factory, rom, data, suffix):
    path: Path = tmp_path_factory.mktemp("b") / f"noise{suffix}"
    path.write_bytes(data)
    with pytest.raises(NesbotError) as raised:
        nesbot.read_screen(path, rom=rom)
    assert "\n" not in str(raised.value)


def test_a_video_stating_too_many_frames_is_refused_before_decoding(tmp_path, rom, monkeypatch):
    """The hostile run's 440,000-frame video decoded for three minutes before it was
    refused; its stated frame count is enough (here the limit lowered to 10)."""
    path = tmp_path / "long.mp4"
    with av.open(str(path), "w") as out:
        stream = out.add_stream("libx264", rate=60, options={"preset": "ultrafast"})
        stream.width, stream.height, stream.pix_fmt = 64, 56, "yuv420p"
        for _ in range(20):
            picture = av.VideoFrame.from_ndarray(np.zeros((56, 64, 3), np.uint8), format="rgb24")
            for packet in stream.encode(picture):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)
    monkeypatch.setattr(screen, "MAX_VIDEO_FRAMES", 10)
    monkeypatch.setattr(screen, "_pictures", lambda path: pytest.fail("decoded"))
    with pytest.raises(NesbotError, match="longer than 10 frames"):
        nesbot.rate(path, rom=rom)
