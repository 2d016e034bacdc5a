"""A second H.264 decoder for the tests: Cisco's OpenH264 (libopenh264), through ctypes.

FFmpeg (PyAV) is the decoder the tests otherwise use; OpenH264 shares no code with it, so a
stream both decode to the pictures given does not lean on one decoder's leniency. This is a
harness around OpenH264's C decoder API (wels/codec_api.h): WelsCreateDecoder, the
ISVCDecoder vtable (Initialize, DecodeFrameNoDelay, DecodeFrame2, FlushFrame, SetOption,
GetOption, Uninitialize), WelsDestroyDecoder.

The structures follow the headers of Debian's libopenh264-dev 2.3.1 (codec_api.h,
codec_app_def.h, codec_def.h) on x86-64; the sizes and offsets gcc gives for them there
(SDecodingParam 32 bytes, sVideoProperty at 24; SBufferInfo 72, pDst at 48;
SDecoderStatistics 104) are asserted below.

`decode_annexb` takes nothing as damage the decoder got over: any return other than
dsErrorFree, an access unit with a slice that gives no picture, a picture where none is due,
a concealed or lost picture in the decoder's statistics, and any message it logs at warning
or error level are all errors (error concealment is off, so damage cannot be hidden).
"""

import ctypes
import ctypes.util
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np
from h264_syntax import mp4_samples

# DECODING_STATE (codec_app_def.h): a bit set.
DS_ERROR_FREE = 0x00
DECODING_STATES = {
    0x01: "dsFramePending",
    0x02: "dsRefLost",
    0x04: "dsBitstreamError",
    0x08: "dsDepLayerLost",
    0x10: "dsNoParamSets",
    0x20: "dsDataErrorConcealed",
    0x40: "dsRefListNullPtrs",
    0x1000: "dsInvalidArgument",
    0x2000: "dsInitialOptExpected",
    0x4000: "dsOutOfMemory",
    0x8000: "dsDstBufNeedExpan",
}
# DECODER_OPTION (codec_app_def.h).
OPTION_END_OF_STREAM = 1
OPTION_TRACE_LEVEL = 9
OPTION_TRACE_CALLBACK = 10
OPTION_GET_STATISTICS = 12
OPTION_PROFILE = 14
OPTION_LEVEL = 15
OPTION_FRAMES_REMAINING = 18
OPTION_NUM_OF_THREADS = 19
# ERROR_CON_IDC, VIDEO_BITSTREAM_TYPE, EVideoFormatType, WELS_LOG (codec_app_def.h, codec_def.h)
ERROR_CON_DISABLE = 0
VIDEO_BITSTREAM_AVC = 0
VIDEO_FORMAT_I420 = 23
LOG_ERROR = 1 << 0
LOG_WARNING = 1 << 1
LOG_NAMES = {LOG_ERROR: "error", LOG_WARNING: "warning", 1 << 2: "info", 1 << 3: "debug"}

LIBRARY_NAMES = ("libopenh264.so.7", "libopenh264.so")


class OpenH264Unavailable(RuntimeError):
    """libopenh264 could not be loaded (Debian: apt-get install libopenh264-7)."""


class OpenH264Error(AssertionError):
    """OpenH264 found the stream in error, or did not give the pictures due."""


class SVideoProperty(ctypes.Structure):
    _fields_ = [("size", ctypes.c_uint), ("eVideoBsType", ctypes.c_int)]


class SDecodingParam(ctypes.Structure):
    _fields_ = [
        ("pFileNameRestructed", ctypes.c_char_p),
        ("uiCpuLoad", ctypes.c_uint),
        ("uiTargetDqLayer", ctypes.c_ubyte),
        ("eEcActiveIdc", ctypes.c_int),  # ERROR_CON_IDC
        ("bParseOnly", ctypes.c_bool),
        ("sVideoProperty", SVideoProperty),
    ]


class SSysMEMBuffer(ctypes.Structure):
    _fields_ = [
        ("iWidth", ctypes.c_int),  # of the picture shown: the SPS's frame cropping applied
        ("iHeight", ctypes.c_int),
        ("iFormat", ctypes.c_int),  # EVideoFormatType
        ("iStride", ctypes.c_int * 2),  # luma, chroma
    ]


class SBufferInfo(ctypes.Structure):
    _fields_ = [
        ("iBufferStatus", ctypes.c_int),  # 1: a picture is ready
        ("uiInBsTimeStamp", ctypes.c_ulonglong),
        ("uiOutYuvTimeStamp", ctypes.c_ulonglong),
        ("sSystemBuffer", SSysMEMBuffer),  # the only member of the union UsrData
        ("pDst", ctypes.POINTER(ctypes.c_ubyte) * 3),
    ]


class SDecoderStatistics(ctypes.Structure):
    _fields_ = [
        ("uiWidth", ctypes.c_uint),
        ("uiHeight", ctypes.c_uint),
        ("fAverageFrameSpeedInMs", ctypes.c_float),
        ("fActualAverageFrameSpeedInMs", ctypes.c_float),
        ("uiDecodedFrameCount", ctypes.c_uint),
        ("uiResolutionChangeTimes", ctypes.c_uint),
        ("uiIDRCorrectNum", ctypes.c_uint),
        ("uiAvgEcRatio", ctypes.c_uint),
        ("uiAvgEcPropRatio", ctypes.c_uint),
        ("uiEcIDRNum", ctypes.c_uint),
        ("uiEcFrameNum", ctypes.c_uint),
        ("uiIDRLostNum", ctypes.c_uint),
        ("uiFreezingIDRNum", ctypes.c_uint),
        ("uiFreezingNonIDRNum", ctypes.c_uint),
        ("iAvgLumaQp", ctypes.c_int),
        ("iSpsReportErrorNum", ctypes.c_int),
        ("iSubSpsReportErrorNum", ctypes.c_int),
        ("iPpsReportErrorNum", ctypes.c_int),
        ("iSpsNoExistNalNum", ctypes.c_int),
        ("iSubSpsNoExistNalNum", ctypes.c_int),
        ("iPpsNoExistNalNum", ctypes.c_int),
        ("uiProfile", ctypes.c_uint),
        ("uiLevel", ctypes.c_uint),
        ("iCurrentActiveSpsId", ctypes.c_int),
        ("iCurrentActivePpsId", ctypes.c_int),
        ("iStatisticsLogInterval", ctypes.c_uint),
    ]


class OpenH264Version(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint) for name in ("uMajor", "uMinor", "uRevision", "uReserved")]


for _struct, _size in ((SDecodingParam, 32), (SBufferInfo, 72), (SDecoderStatistics, 104)):
    assert ctypes.sizeof(_struct) == _size, (_struct.__name__, ctypes.sizeof(_struct))
assert SBufferInfo.pDst.offset == 48 and SDecodingParam.sVideoProperty.offset == 24

# typedef const ISVCDecoderVtbl* ISVCDecoder; the functions take an ISVCDecoder* (the object).
_DECODER = ctypes.c_void_p
_BYTES = ctypes.POINTER(ctypes.c_ubyte)
_PLANES = ctypes.POINTER(_BYTES)
_LONG = ctypes.c_long
_STATE = ctypes.c_int  # DECODING_STATE
_VTABLE = (  # ISVCDecoderVtbl, in order
    ("Initialize", _LONG, (_DECODER, ctypes.POINTER(SDecodingParam))),
    ("Uninitialize", _LONG, (_DECODER,)),
    ("DecodeFrame", _STATE, (_DECODER,) + (ctypes.c_void_p,) * 6),  # not used
    ("DecodeFrameNoDelay", _STATE, (_DECODER, _BYTES, ctypes.c_int, _PLANES, ctypes.c_void_p)),
    ("DecodeFrame2", _STATE, (_DECODER, _BYTES, ctypes.c_int, _PLANES, ctypes.c_void_p)),
    ("FlushFrame", _STATE, (_DECODER, _PLANES, ctypes.c_void_p)),
    ("DecodeParser", _STATE, (_DECODER, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)),
    ("DecodeFrameEx", _STATE, (_DECODER,) + (ctypes.c_void_p,) * 8),  # not used
    ("SetOption", _LONG, (_DECODER, ctypes.c_int, ctypes.c_void_p)),
    ("GetOption", _LONG, (_DECODER, ctypes.c_int, ctypes.c_void_p)),
)
_TRACE_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p)

_library: ctypes.CDLL | None = None


def library() -> ctypes.CDLL:
    """libopenh264, loaded once; OpenH264Unavailable if it cannot be."""
    global _library
    if _library is None:
        names = list(LIBRARY_NAMES)
        found = ctypes.util.find_library("openh264")
        if found and found not in names:
            names.append(found)
        errors = []
        for name in names:
            try:
                lib = ctypes.CDLL(name)
                break
            except OSError as error:
                errors.append(str(error))
        else:
            raise OpenH264Unavailable(
                "libopenh264 cannot be loaded (Debian: apt-get install libopenh264-7): "
                + "; ".join(errors)
            )
        lib.WelsCreateDecoder.argtypes = [ctypes.POINTER(_DECODER)]
        lib.WelsCreateDecoder.restype = ctypes.c_long
        lib.WelsDestroyDecoder.argtypes = [_DECODER]
        lib.WelsDestroyDecoder.restype = None
        lib.WelsGetCodecVersionEx.argtypes = [ctypes.POINTER(OpenH264Version)]
        lib.WelsGetCodecVersionEx.restype = None
        _library = lib
    return _library


def version() -> str:
    found = OpenH264Version()
    library().WelsGetCodecVersionEx(ctypes.byref(found))
    return f"{found.uMajor}.{found.uMinor}.{found.uRevision}"


def describe(state: int) -> str:
    names = [name for bit, name in DECODING_STATES.items() if state & bit]
    unknown = state & ~sum(DECODING_STATES)
    if unknown:
        names.append(hex(unknown))
    return f"{state:#x} ({' | '.join(names)})"


Picture = tuple[np.ndarray, np.ndarray, np.ndarray]


class Decoder:
    """One OpenH264 decoder: no error concealment, no threads, log messages kept."""

    def __init__(self) -> None:
        lib = library()
        self._lib = lib
        self.messages: list[tuple[int, str]] = []  # (WELS_LOG level, text)
        handle = _DECODER()
        if lib.WelsCreateDecoder(ctypes.byref(handle)) != 0 or not handle.value:
            raise OpenH264Error("WelsCreateDecoder failed")
        self._handle = handle
        table = ctypes.cast(
            ctypes.cast(handle, ctypes.POINTER(ctypes.c_void_p))[0],
            ctypes.POINTER(ctypes.c_void_p * len(_VTABLE)),
        ).contents
        self._calls = {
            name: ctypes.CFUNCTYPE(restype, *argtypes)(table[index])
            for index, (name, restype, argtypes) in enumerate(_VTABLE)
        }
        # Messages to a callback rather than stderr (set before Initialize, which logs too).
        self._trace = _TRACE_CALLBACK(self._keep_message)
        self._set_option(OPTION_TRACE_CALLBACK, ctypes.cast(self._trace, ctypes.c_void_p))
        self._set_option(OPTION_TRACE_LEVEL, ctypes.c_uint(LOG_WARNING))
        param = SDecodingParam()
        param.uiTargetDqLayer = 0xFF  # every layer (UCHAR_MAX)
        param.eEcActiveIdc = ERROR_CON_DISABLE  # damage shows, not hidden
        param.bParseOnly = False
        param.sVideoProperty.size = ctypes.sizeof(SVideoProperty)
        param.sVideoProperty.eVideoBsType = VIDEO_BITSTREAM_AVC
        self._initialized = False
        try:
            result = self._call("Initialize", ctypes.byref(param))
            if result != 0:
                raise OpenH264Error(f"Initialize failed: {result}")
            self._initialized = True
            self._set_option(OPTION_NUM_OF_THREADS, ctypes.c_int(0))
        except BaseException:
            self.close()
            raise

    def _keep_message(self, context, level: int, text: bytes | None) -> None:
        self.messages.append((level, (text or b"").decode(errors="replace").strip()))

    def _call(self, name: str, *args):
        return self._calls[name](self._handle, *args)

    def _set_option(self, option: int, value) -> None:
        # Every option is read through the pointer (a callback: a pointer to the pointer).
        result = self._call("SetOption", option, ctypes.byref(value))
        if result != 0:
            raise OpenH264Error(f"SetOption({option}) failed: {result}")

    def get_int(self, option: int) -> int:
        value = ctypes.c_int()
        result = self._call("GetOption", option, ctypes.byref(value))
        if result != 0:
            raise OpenH264Error(f"GetOption({option}) failed: {result}")
        return value.value

    def statistics(self) -> SDecoderStatistics:
        found = SDecoderStatistics()
        result = self._call("GetOption", OPTION_GET_STATISTICS, ctypes.byref(found))
        if result != 0:
            raise OpenH264Error(f"GetOption(statistics) failed: {result}")
        return found

    def problems(self) -> list[str]:
        return [
            f"{LOG_NAMES.get(level, level)}: {text}"
            for level, text in self.messages
            if level <= LOG_WARNING
        ]

    def decode(self, access_unit: bytes | None, *, delayed: bool = False) -> Picture | None:
        """Decode one Annex B access unit (None: the end of the stream); returns the picture
        it gives, if any. DecodeFrameNoDelay gives an access unit's picture at once;
        DecodeFrame2 (delayed) when the next access unit starts."""
        planes = (_BYTES * 3)()
        info = SBufferInfo()
        if access_unit is None:
            source, size = None, 0
        else:
            buffer = (ctypes.c_ubyte * len(access_unit)).from_buffer_copy(access_unit)
            source, size = ctypes.cast(buffer, _BYTES), len(access_unit)
        call = "DecodeFrame2" if delayed or access_unit is None else "DecodeFrameNoDelay"
        state = self._call(call, source, size, planes, ctypes.byref(info))
        if state != DS_ERROR_FREE:
            raise OpenH264Error(f"{call} returned {describe(state)}")
        return self._picture(info, planes)

    def flush(self) -> list[Picture]:
        """Every picture the decoder still holds, after the end of the stream."""
        self._set_option(OPTION_END_OF_STREAM, ctypes.c_int(1))
        pictures = []
        picture = self.decode(None)
        if picture is not None:
            pictures.append(picture)
        while self.get_int(OPTION_FRAMES_REMAINING) > 0:
            planes = (_BYTES * 3)()
            info = SBufferInfo()
            state = self._call("FlushFrame", planes, ctypes.byref(info))
            if state != DS_ERROR_FREE:
                raise OpenH264Error(f"FlushFrame returned {describe(state)}")
            picture = self._picture(info, planes)
            if picture is None:
                raise OpenH264Error("FlushFrame gave no picture with pictures remaining")
            pictures.append(picture)
        return pictures

    @staticmethod
    def _picture(info: SBufferInfo, planes) -> Picture | None:
        if info.iBufferStatus != 1:
            return None
        memory = info.sSystemBuffer
        if memory.iFormat != VIDEO_FORMAT_I420:
            raise OpenH264Error(f"a picture in format {memory.iFormat}, not I420")
        width, height = memory.iWidth, memory.iHeight
        picture = []
        for index, (plane_width, plane_height, stride) in enumerate(
            (
                (width, height, memory.iStride[0]),
                ((width + 1) // 2, (height + 1) // 2, memory.iStride[1]),
                ((width + 1) // 2, (height + 1) // 2, memory.iStride[1]),
            )
        ):
            if not planes[index] or stride < plane_width:
                raise OpenH264Error(f"plane {index}: no samples or stride {stride}")
            # The decoder's own buffer, valid until the next call: copied out.
            size = stride * (plane_height - 1) + plane_width
            samples = np.ctypeslib.as_array(planes[index], (size,))
            rows = np.lib.stride_tricks.as_strided(
                samples, (plane_height, plane_width), (stride, 1)
            )
            picture.append(rows.copy())
        return tuple(picture)

    def close(self) -> None:
        handle, self._handle = self._handle, None
        if handle is None:
            return
        if self._initialized:
            self._calls["Uninitialize"](handle)
        self._lib.WelsDestroyDecoder(handle)

    def __enter__(self) -> "Decoder":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def is_picture_start(nal: bytes) -> bool:
    """A coded slice (types 1, 5) with first_mb_in_slice 0 (ue(v) 0 is the single bit 1)."""
    return len(nal) > 1 and nal[0] & 0x1F in (1, 5) and nal[1] & 0x80 != 0


def decode_annexb(access_units: Iterable[bytes], *, delayed: bool = False) -> list[Picture]:
    """Every picture of a stream of Annex B access units, as (Y, U, V) uint8 planes of the
    picture's size after the SPS's cropping. OpenH264Error if the decoder reports an error
    state, logs a warning or an error, conceals anything, or a picture is missing or extra:
    with DecodeFrameNoDelay each access unit with a slice gives its picture at once; with
    DecodeFrame2 (delayed), the picture before it (the last comes out at the flush)."""
    pictures: list[Picture] = []
    with Decoder() as decoder:
        due = 0
        for index, unit in enumerate(access_units):
            try:
                picture = decoder.decode(bytes(unit), delayed=delayed)
            except OpenH264Error as error:
                raise OpenH264Error(f"access unit {index}: {error}", *decoder.problems()) from None
            slices = any(is_picture_start(nal) for nal in nal_units(unit))
            expected = slices if not delayed else due > 0 and slices
            if (picture is not None) != expected:
                what = "no picture" if picture is None else "a picture not due"
                raise OpenH264Error(f"access unit {index}: {what}", *decoder.problems())
            if picture is not None:
                pictures.append(picture)
            due += slices
        try:
            pictures.extend(decoder.flush())
        except OpenH264Error as error:
            raise OpenH264Error(f"at the flush: {error}", *decoder.problems()) from None
        if len(pictures) != due:
            raise OpenH264Error(f"{len(pictures)} pictures from {due} access units")
        statistics = decoder.statistics()
        concealed = {
            name: getattr(statistics, name)
            for name in (
                "uiEcIDRNum",
                "uiEcFrameNum",
                "uiIDRLostNum",
                "uiFreezingIDRNum",
                "uiFreezingNonIDRNum",
                "iSpsReportErrorNum",
                "iPpsReportErrorNum",
                "iSpsNoExistNalNum",
                "iPpsNoExistNalNum",
            )
            if getattr(statistics, name)
        }
        if concealed:
            raise OpenH264Error(f"decoder statistics: {concealed}")
        if statistics.uiDecodedFrameCount != due:
            raise OpenH264Error(f"{statistics.uiDecodedFrameCount} pictures decoded of {due}")
        if decoder.problems():
            raise OpenH264Error("the decoder logged", *decoder.problems())
    return pictures


def nal_units(stream: bytes) -> Iterator[bytes]:
    """The NAL units of an Annex B byte stream (start codes 00 00 01 or 00 00 00 01)."""
    starts = []
    position = stream.find(b"\x00\x00\x01")
    while position >= 0:
        starts.append(position + 3)
        position = stream.find(b"\x00\x00\x01", position + 3)
    for index, start in enumerate(starts):
        end = starts[index + 1] - 3 if index + 1 < len(starts) else len(stream)
        # trailing_zero_8bits and a four-byte start code's leading zero belong to no NAL unit
        yield bytes(stream[start:end]).rstrip(b"\x00")


def access_units_of_annexb(stream: bytes) -> list[bytes]:
    """An Annex B byte stream split into access units (H.264 7.4.1.2.3): a new one begins at
    an access unit delimiter, SEI, SPS or PPS after a slice, or at a slice that starts a
    picture. Each unit's NAL units get four-byte start codes."""
    units: list[list[bytes]] = []
    seen_slice = False
    for nal in nal_units(stream):
        kind = nal[0] & 0x1F
        if not units or (seen_slice and (kind in (6, 7, 8, 9) or is_picture_start(nal))):
            units.append([])
            seen_slice = False
        units[-1].append(nal)
        seen_slice |= kind in (1, 5)
    return [b"".join(b"\x00\x00\x00\x01" + nal for nal in unit) for unit in units]


def access_units_of_mp4(path: str | Path) -> list[bytes]:
    """The H.264 access units of an .mp4's first video track, in Annex B: each sample's
    NAL units with start codes, the SPS and PPS of the sample description (avcC) before the
    first. A first sample that carries parameter sets of its own must carry those (they are
    not repeated). PyAV's demuxer only reads the samples."""
    parameter_sets, samples, _ = mp4_samples(Path(path))
    units = []
    for nals in samples:
        if not units:
            in_band = [nal for nal in nals if nal[0] & 0x1F in (7, 8)]
            if in_band and in_band != parameter_sets:
                raise ValueError(f"{path}: the first sample's SPS/PPS are not the avcC's")
            nals = parameter_sets + [nal for nal in nals if nal[0] & 0x1F not in (7, 8)]
        units.append(b"".join(b"\x00\x00\x00\x01" + nal for nal in nals))
    return units
