"""Images a model can take: MIME type proven by magic bytes, size within what providers
accept.

``normalize_image`` judges an in-limit image from its header alone (no decoding);
oversized ones are downscaled and re-encoded with Pillow (an optional extra, imported
only when an image must be re-encoded), and the rest are dropped with a reason that
``omitted_note`` turns into the one note the model reads instead.
"""

from __future__ import annotations

import io
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from tooldeck._tool import ImagePart
from tooldeck.host.call.sizes import format_size

if TYPE_CHECKING:
    from PIL import Image


class ImageBounds(Protocol):
    """What ``normalize_image`` reads of its limits: an ``ImageLimits``, or a Location's
    ``[images]`` config as it is (no value is built per call)."""

    @property
    def max_bytes(self) -> int: ...

    @property
    def max_dimension(self) -> int: ...


@dataclass(frozen=True, slots=True)
class ImageLimits:
    """What an image may weigh (encoded bytes) and measure (longest side, in pixels)."""

    max_bytes: int = 5 * 1024 * 1024
    max_dimension: int = 2000

    def __post_init__(self) -> None:
        if self.max_bytes < 1 or self.max_dimension < 1:
            raise ValueError(f"image limits must be positive, got {self!r}")


DEFAULT_IMAGE_LIMITS = ImageLimits()


def omitted_note(reasons: Sequence[str]) -> str:
    """The one note that replaces every dropped image: a count and the distinct reasons."""
    count = len(reasons)
    distinct = "; ".join(dict.fromkeys(reasons))
    return f"[{count} image{'' if count == 1 else 's'} omitted: {distinct}]"


# --- sniffing and header dimensions -----------------------------------------------------

_FORMAT_NAMES = {
    "image/png": "PNG",
    "image/jpeg": "JPEG",
    "image/gif": "GIF",
    "image/webp": "WEBP",
}
_NOT_AN_IMAGE = "not a recognised image (PNG, JPEG, GIF or WEBP)"
_INSTALL_HINT = "Pillow is not installed (pip install 'tooldeck[images]')"
# SOFn markers carry the frame size; C4 (DHT), C8 (JPG) and CC (DAC) do not.
_JPEG_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
_JPEG_STANDALONE = frozenset({0x01, *range(0xD0, 0xD9)})  # TEM, RSTn, SOI
_JPEG_NO_FRAME = frozenset({0x00, 0xD9, 0xDA})  # not a marker, EOI, SOS before any SOFn


def sniff_image(data: bytes) -> str | None:
    """The MIME type the magic bytes prove, or ``None`` for anything else."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if data.startswith(b"RIFF") and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def image_size(data: bytes, mime_type: str) -> tuple[int, int] | None:
    """``(width, height)`` from the header of a sniffed image; ``None`` if unreadable or 0."""
    try:
        size = _SIZE_READERS[mime_type](data)
    except struct.error:  # truncated header
        return None
    return size if size is not None and size[0] and size[1] else None


def _png_size(data: bytes) -> tuple[int, int] | None:
    if data[12:16] != b"IHDR":
        return None
    width, height = struct.unpack_from(">II", data, 16)
    return width, height


def _gif_size(data: bytes) -> tuple[int, int] | None:
    width, height = struct.unpack_from("<HH", data, 6)  # the logical screen
    return width, height


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    """Walk the marker segments to the first SOFn (a hot-ish loop: headers are short)."""
    offset = 2
    end = len(data)
    while offset < end:
        if data[offset] != 0xFF:
            return None
        while offset < end and data[offset] == 0xFF:  # fill bytes before a marker
            offset += 1
        if offset >= end:
            return None
        marker = data[offset]
        offset += 1
        if marker in _JPEG_STANDALONE:
            continue
        if marker in _JPEG_SOF:
            height, width = struct.unpack_from(">HH", data, offset + 3)
            return width, height
        if marker in _JPEG_NO_FRAME:
            return None
        (length,) = struct.unpack_from(">H", data, offset)
        offset += length
    return None


def _webp_size(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8 " and data[23:26] == b"\x9d\x01\x2a":
        width, height = struct.unpack_from("<HH", data, 26)
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L" and data[20:21] == b"\x2f":
        (bits,) = struct.unpack_from("<I", data, 21)
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X":
        width = int.from_bytes(data[24:27], "little") + 1
        height = int.from_bytes(data[27:30], "little") + 1
        return (width, height) if len(data) >= 30 else None
    return None


_SIZE_READERS: dict[str, Callable[[bytes], tuple[int, int] | None]] = {
    "image/png": _png_size,
    "image/gif": _gif_size,
    "image/jpeg": _jpeg_size,
    "image/webp": _webp_size,
}


# --- keep, correct, reduce or drop -----------------------------------------------------


def normalize_image(part: ImagePart, limits: ImageBounds) -> tuple[ImagePart | None, str]:
    """The usable image for ``part`` and ``""``, or ``None`` and why it was dropped.

    ``part.data`` is bytes-like (the caller checked). In-limit images are judged from
    their header alone; Pillow is imported only for an image that must be downscaled or
    re-encoded.
    """
    data = part.data if isinstance(part.data, bytes) else bytes(part.data)
    mime_type = sniff_image(data)
    if mime_type is None:
        return None, _NOT_AN_IMAGE
    size = image_size(data, mime_type)
    if size is not None and _fits(len(data), size, limits):
        if mime_type == part.mime_type and data is part.data:
            return part, ""
        return ImagePart(data, mime_type), ""
    return _reduce(data, mime_type, size, limits)


def _fits(n_bytes: int, size: tuple[int, int], limits: ImageBounds) -> bool:
    return n_bytes <= limits.max_bytes and max(size) <= limits.max_dimension


def _reduce(
    data: bytes, mime_type: str, size: tuple[int, int] | None, limits: ImageBounds
) -> tuple[ImagePart | None, str]:
    """Downscale and re-encode with Pillow, or say why the image cannot be kept."""
    try:
        from PIL import Image
    except ImportError:
        verb = "downscale" if size is not None else "read the size of"
        return None, f"{_INSTALL_HINT} to {verb} {_describe(data, mime_type, size, limits)}"
    if size is not None and _too_many_pixels(size, Image.MAX_IMAGE_PIXELS):
        return None, f"image is {size[0]}x{size[1]}, too large to decode safely"
    try:
        reduced = _reencode(data, mime_type, limits)
    except (OSError, ValueError, SyntaxError, EOFError, struct.error, Image.DecompressionBombError):
        return None, f"Pillow could not decode {_describe(data, mime_type, None, limits)}"
    if reduced is None:
        shown = f"{size[0]}x{size[1]}" if size else format_size(len(data))
        return None, f"image is {shown} and could not be reduced below the limits"
    return ImagePart(*reduced), ""


def _too_many_pixels(size: tuple[int, int], max_pixels: int | None) -> bool:
    """Beyond Pillow's decompression-bomb threshold a decode would warn or fail."""
    return max_pixels is not None and size[0] * size[1] > max_pixels


def _describe(
    data: bytes, mime_type: str, size: tuple[int, int] | None, limits: ImageBounds
) -> str:
    """``a 12 MiB PNG image``, ``a 3000x200 PNG image``, ``a 9000x9000, 12 MiB PNG image``."""
    shown = []
    if size is not None and max(size) > limits.max_dimension:
        shown.append(f"{size[0]}x{size[1]}")
    if size is None or len(data) > limits.max_bytes or not shown:
        shown.append(format_size(len(data)))
    return f"a {', '.join(shown)} {_FORMAT_NAMES[mime_type]} image"


# --- re-encoding (Pillow) ---------------------------------------------------------------

_JPEG_QUALITIES = (85, 70, 55, 40)


def _reencode(data: bytes, mime_type: str, limits: ImageBounds) -> tuple[bytes, str] | None:
    """Decode, shrink to ``max_dimension`` and encode within ``max_bytes``, or ``None``."""
    from PIL import Image

    with Image.open(io.BytesIO(data)) as opened:
        # thumbnail() only shrinks, keeps the aspect ratio and lets JPEG decode at a
        # reduced scale (draft mode), so a huge photo never decodes at full size.
        opened.thumbnail((limits.max_dimension, limits.max_dimension), Image.Resampling.LANCZOS)
        # Encode before the block ends: closing the image destroys its pixel data.
        return _encode_to_fit(_upright(opened), mime_type != "image/jpeg", limits.max_bytes)


def _encode_to_fit(
    image: Image.Image, lossless_first: bool, max_bytes: int
) -> tuple[bytes, str] | None:
    """PNG first for lossless sources (GIF and WEBP too), then JPEG at falling quality."""
    if lossless_first:
        png = _save(image, "PNG", optimize=True)
        if len(png) <= max_bytes:
            return png, "image/png"
    flat = _flatten(image)
    for quality in _JPEG_QUALITIES:
        jpeg = _save(flat, "JPEG", quality=quality, optimize=True)
        if len(jpeg) <= max_bytes:
            return jpeg, "image/jpeg"
    return None


def _upright(image: Image.Image) -> Image.Image:
    """Apply the EXIF orientation: re-encoding drops the tag that told viewers to rotate."""
    if image.getexif().get(0x0112, 1) == 1:
        return image
    from PIL import ImageOps

    return ImageOps.exif_transpose(image)


def _flatten(image: Image.Image) -> Image.Image:
    """An RGB or L image for JPEG; transparency is composited onto white, not black."""
    if image.mode in ("RGB", "L", "CMYK"):
        return image
    from PIL import Image

    rgba = image.convert("RGBA")
    flat = Image.new("RGB", rgba.size, (255, 255, 255))
    flat.paste(rgba, mask=rgba.getchannel("A"))
    return flat


def _save(image: Image.Image, image_format: str, **options: Any) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, image_format, **options)
    return buffer.getvalue()
