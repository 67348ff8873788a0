"""Images in content: kept, corrected, reduced with Pillow or dropped with one note."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
import textwrap

import pytest
from PIL import Image

from tooldeck import (
    ConfigError,
    Location,
    Tool,
    ToolCall,
    ToolResult,
    ToolService,
    load_config,
    tool,
)
from tooldeck._tool import ImagePart, TextPart
from tooldeck.errors import ToolDefectError
from tooldeck.host.call.content import normalize_content
from tooldeck.host.call.images import DEFAULT_IMAGE_LIMITS, ImageLimits

NOT_AN_IMAGE = "not a recognised image (PNG, JPEG, GIF or WEBP)"
INSTALL_HINT = "Pillow is not installed (pip install 'tooldeck[images]')"
SMALL = (321, 123)


def encode(image: Image.Image, image_format: str, **options) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, image_format, **options)
    return buffer.getvalue()


def solid(size=SMALL, mode="RGB") -> Image.Image:
    return Image.new(mode, size, "teal")


def noise(size=(400, 400), mode="RGB") -> Image.Image:
    """Incompressible pixels, so byte limits bite; seeded so sizes are stable."""
    channels = len(mode)
    return Image.frombytes(mode, size, random.Random(0).randbytes(size[0] * size[1] * channels))


def decoded(data: bytes) -> tuple[str | None, tuple[int, int]]:
    with Image.open(io.BytesIO(data)) as image:
        return image.format, image.size


def png_header(width: int, height: int) -> bytes:
    """A PNG signature and IHDR claiming ``width`` x ``height``, followed by garbage."""
    ihdr = (13).to_bytes(4, "big") + b"IHDR" + width.to_bytes(4, "big") + height.to_bytes(4, "big")
    return b"\x89PNG\r\n\x1a\n" + ihdr + b"\x08\x02\x00\x00\x00" + b"\x00" * 4 + b"garbage" * 20


def note(count: int, *reasons: str) -> TextPart:
    return TextPart(f"[{count} image{'' if count == 1 else 's'} omitted: {'; '.join(reasons)}]")


# Every format and WEBP flavour whose header carries the size somewhere else.
SMALL_IMAGES = {
    "png": (encode(solid(), "PNG"), "image/png"),
    "jpeg": (encode(solid(), "JPEG"), "image/jpeg"),
    "jpeg-progressive": (encode(solid(), "JPEG", progressive=True), "image/jpeg"),
    "jpeg-exif": (encode(solid(), "JPEG", exif=Image.Exif()), "image/jpeg"),
    "gif": (encode(solid().convert("P"), "GIF"), "image/gif"),
    "webp-vp8": (encode(solid(), "WEBP"), "image/webp"),
    "webp-vp8l": (encode(solid(), "WEBP", lossless=True), "image/webp"),
    "webp-vp8x": (encode(solid(mode="RGBA"), "WEBP"), "image/webp"),
}


def test_the_input_sequence_is_not_mutated():
    png, _ = SMALL_IMAGES["png"]
    content = [
        TextPart("t"),
        ImagePart(png, "image/jpeg"),
        ImagePart(encode(solid((3000, 100)), "PNG"), "image/png"),
        ImagePart(b"not an image", "image/png"),
        "bare",
    ]
    before = list(content)
    result = normalize_content("t", content, None)
    assert content == before
    assert all(after is item for after, item in zip(content, before, strict=True))
    assert content[1].mime_type == "image/jpeg"
    assert len(result) == 5  # text, corrected png, downscaled png, bare text, note


# --- kept, corrected, dropped -----------------------------------------------------


@pytest.mark.parametrize("name", SMALL_IMAGES)
def test_in_limit_images_are_kept_untouched(name):
    data, mime_type = SMALL_IMAGES[name]
    part = ImagePart(data, mime_type)
    (kept,) = normalize_content("t", [part], None, limits=ImageLimits(max_dimension=max(SMALL)))
    assert kept is part


@pytest.mark.parametrize("name", SMALL_IMAGES)
def test_header_dimensions_decide_downscaling(name):
    data, mime_type = SMALL_IMAGES[name]
    limit = max(SMALL) - 1
    (reduced,) = normalize_content(
        "t", [ImagePart(data, mime_type)], None, limits=ImageLimits(max_dimension=limit)
    )
    assert isinstance(reduced, ImagePart)
    assert max(decoded(reduced.data)[1]) == limit


@pytest.mark.parametrize("declared", ["image/jpeg", "image/jpg", "application/octet-stream", ""])
def test_a_wrong_declared_mime_type_is_corrected(declared):
    data, _ = SMALL_IMAGES["png"]
    (kept,) = normalize_content("t", [ImagePart(data, declared)], None)
    assert kept == ImagePart(data, "image/png")
    assert kept.data is data


@pytest.mark.parametrize("name", ["jpeg", "gif", "webp-vp8"])
def test_every_format_is_sniffed(name):
    data, mime_type = SMALL_IMAGES[name]
    result = normalize_content("t", [ImagePart(data, "image/png")], None)
    assert result == (ImagePart(data, mime_type),)


def test_bytearray_data_is_kept_as_bytes():
    data, _ = SMALL_IMAGES["png"]
    part = ImagePart(bytearray(data), "image/png")  # type: ignore[arg-type]
    (kept,) = normalize_content("t", [part], None)
    assert kept == ImagePart(data, "image/png")
    assert type(kept.data) is bytes


def test_image_data_that_is_not_bytes_is_a_defect():
    with pytest.raises(ToolDefectError, match=r"ImagePart\.data must be bytes, got str"):
        normalize_content("t", [ImagePart("iVBORw0KGgo=", "image/png")], None)  # type: ignore[arg-type]


@pytest.mark.parametrize("data", [b"", b"not an image", b"\x89PNG", b"RIFF\x00\x00\x00\x00WEBX"])
def test_unrecognised_data_is_dropped_with_a_note(data):
    result = normalize_content("t", [TextPart("before"), ImagePart(data, "image/png")], None)
    assert result == (TextPart("before"), note(1, NOT_AN_IMAGE))


def test_drops_share_one_note_after_the_kept_parts():
    png, _ = SMALL_IMAGES["png"]
    content = [
        ImagePart(b"junk", "image/png"),
        TextPart("middle"),
        ImagePart(b"more junk", "image/gif"),
        ImagePart(png, "image/png"),
        ImagePart(undecodable := png_header(3000, 3000), "image/png"),
    ]
    result = normalize_content("t", content, None)
    assert result[:2] == (TextPart("middle"), ImagePart(png, "image/png"))
    reason = f"Pillow could not decode a {len(undecodable)} bytes PNG image"
    assert result[2] == note(3, NOT_AN_IMAGE, reason)
    assert len(result) == 3


# --- reduced with Pillow ----------------------------------------------------------


@pytest.mark.parametrize(
    ("image_format", "mime_type", "reduced_format"),
    [
        ("PNG", "image/png", "PNG"),
        ("JPEG", "image/jpeg", "JPEG"),
        ("GIF", "image/gif", "PNG"),
        ("WEBP", "image/webp", "PNG"),
    ],
)
def test_oversized_images_are_downscaled(image_format, mime_type, reduced_format):
    image = solid((3000, 1500))
    data = encode(image.convert("P") if image_format == "GIF" else image, image_format)
    (reduced,) = normalize_content("t", [ImagePart(data, mime_type)], None)
    assert isinstance(reduced, ImagePart)
    assert decoded(reduced.data) == (reduced_format, (2000, 1000))
    assert reduced.mime_type == f"image/{reduced_format.lower()}"


def test_a_png_too_heavy_even_downscaled_becomes_jpeg():
    data = encode(noise(), "PNG")
    limits = ImageLimits(max_bytes=len(data) // 3)
    (reduced,) = normalize_content("t", [ImagePart(data, "image/png")], None, limits=limits)
    assert reduced.mime_type == "image/jpeg"
    assert len(reduced.data) <= limits.max_bytes
    assert decoded(reduced.data) == ("JPEG", (400, 400))


def test_transparency_is_flattened_onto_white_for_jpeg():
    image = noise(mode="RGBA")
    image.putalpha(0)
    data = encode(image, "PNG")
    limits = ImageLimits(max_bytes=len(data) // 3)
    (reduced,) = normalize_content("t", [ImagePart(data, "image/png")], None, limits=limits)
    with Image.open(io.BytesIO(reduced.data)) as flat:
        assert all(channel > 245 for channel in flat.getpixel((10, 10)))


def test_exif_orientation_is_applied_before_the_tag_is_lost():
    exif = Image.Exif()
    exif[0x0112] = 6  # stored sideways: viewers rotate 90° clockwise
    data = encode(solid((3000, 1000)), "JPEG", exif=exif)
    (reduced,) = normalize_content("t", [ImagePart(data, "image/jpeg")], None)
    image_format, (width, height) = decoded(reduced.data)
    assert image_format == "JPEG"
    assert height == 2000
    assert width < height


def test_an_image_that_cannot_fit_is_dropped():
    data = encode(noise(), "PNG")
    result = normalize_content(
        "t", [ImagePart(data, "image/png")], None, limits=ImageLimits(max_bytes=1000)
    )
    assert result == (note(1, "image is 400x400 and could not be reduced below the limits"),)


@pytest.mark.parametrize("size", [(3000, 3000), (0, 10)])
def test_an_image_pillow_cannot_decode_is_dropped(size):
    data = png_header(*size)
    result = normalize_content("t", [ImagePart(data, "image/png")], None)
    assert result == (note(1, f"Pillow could not decode a {len(data)} bytes PNG image"),)


def test_in_limit_images_are_judged_by_their_header_alone():
    # The documented trade-off of the cheap path: a valid header with a corrupt body
    # inside the limits is passed on; only images that must be re-encoded are decoded.
    part = ImagePart(png_header(500, 500), "image/png")
    assert normalize_content("t", [part], None) == (part,)


def test_a_decompression_bomb_is_dropped_without_decoding():
    # Decoding would raise DecompressionBombWarning, an error under this suite's config.
    result = normalize_content("t", [ImagePart(png_header(20000, 20000), "image/png")], None)
    assert result == (note(1, "image is 20000x20000, too large to decode safely"),)


# --- limits -------------------------------------------------------------------------------


def test_default_limits():
    assert ImageLimits(max_bytes=5 * 1024 * 1024, max_dimension=2000) == DEFAULT_IMAGE_LIMITS


@pytest.mark.parametrize("limits", [{"max_bytes": 0}, {"max_dimension": -1}])
def test_limits_must_be_positive(limits):
    with pytest.raises(ValueError, match="must be positive"):
        ImageLimits(**limits)


# --- without Pillow -----------------------------------------------------------------------

SCRIPT = textwrap.dedent(
    """
    import json, pathlib, sys
    if sys.argv[1] == "block":
        sys.modules["PIL"] = None  # what `import PIL` sees when Pillow is not installed
    from tooldeck.host.call.content import normalize_content
    from tooldeck.host.call.images import ImageLimits
    from tooldeck._tool import ImagePart
    imported_with_module = "PIL" in sys.modules and sys.modules["PIL"] is not None
    results = []
    for case in json.loads(pathlib.Path(sys.argv[2]).read_text()):
        data = bytes.fromhex(case["hex"])
        limits = ImageLimits(**case["limits"])
        parts = normalize_content("t", [ImagePart(data, case["mime"])], None, limits=limits)
        results.append([
            [part.type, getattr(part, "mime_type", None), getattr(part, "data", None) == data,
             getattr(part, "text", None)]
            for part in parts
        ])
    loaded = "PIL" in sys.modules and sys.modules["PIL"] is not None
    print(json.dumps({"results": results, "pil_at_import": imported_with_module, "pil": loaded}))
    """
)


def run_isolated(tmp_path, cases, *, block: bool) -> dict:
    """Normalize ``cases`` (data, declared mime, limits) in a fresh interpreter."""
    spec = [{"hex": data.hex(), "mime": mime, "limits": limits} for data, mime, limits in cases]
    path = tmp_path / "cases.json"
    path.write_text(json.dumps(spec))
    argv = [sys.executable, "-W", "error", "-c", SCRIPT, "block" if block else "allow", str(path)]
    completed = subprocess.run(argv, capture_output=True, text=True, check=True, timeout=60)
    return json.loads(completed.stdout)


def test_pillow_is_not_imported_for_in_limit_images(tmp_path):
    cases = [(data, mime, {}) for data, mime in SMALL_IMAGES.values()]
    report = run_isolated(tmp_path, cases, block=False)
    assert report["pil_at_import"] is False
    assert report["pil"] is False
    assert [result[0][:3] for result in report["results"]] == [
        ["image", mime, True] for _, mime in SMALL_IMAGES.values()
    ]


def test_without_pillow_in_limit_images_are_kept_and_others_dropped(tmp_path):
    png, _ = SMALL_IMAGES["png"]
    heavy = encode(noise(), "PNG")
    cases = [
        (png, "image/png", {}),
        (png, "image/webp", {}),
        (encode(solid((3000, 1500)), "PNG"), "image/png", {}),
        (heavy, "image/png", {"max_bytes": 100_000}),
        (b"\x89PNG\r\n\x1a\n", "image/png", {}),
    ]
    results = run_isolated(tmp_path, cases, block=True)["results"]
    heavy_kib = f"{len(heavy) / 1024:,.1f}".removesuffix(".0") + " KiB"
    assert results == [
        [["image", "image/png", True, None]],
        [["image", "image/png", True, None]],
        [["text", None, False, note(1, f"{INSTALL_HINT} to downscale a 3000x1500 PNG image").text]],
        [
            [
                "text",
                None,
                False,
                note(1, f"{INSTALL_HINT} to downscale a {heavy_kib} PNG image").text,
            ]
        ],
        [
            [
                "text",
                None,
                False,
                note(1, f"{INSTALL_HINT} to read the size of a 8 bytes PNG image").text,
            ]
        ],
    ]


# --- the Location's [images] limits ----------------------------------------------------


def test_a_locations_images_config_bounds_the_images_of_every_call_path(tmp_path):
    (tmp_path / "tooldeck.toml").write_text("[images]\nmax_dimension = 100\nmax_bytes = 20000\n")
    data, mime_type = SMALL_IMAGES["png"]

    def picture() -> ToolResult:
        """A picture."""
        return ToolResult([ImagePart(data, mime_type)])

    service = ToolService(Location(tmp_path, config=load_config(tmp_path)))
    executor = Tool(name="executor", description="x", execute=lambda i, c: picture())
    service.transform(lambda e: (e.add(executor), e.add(tool(picture))), source="test")
    snapshot = service.snapshot()
    for name in ("executor", "picture"):
        (part,) = snapshot.execute_sync(ToolCall("1", name, "{}")).content
        assert max(decoded(part.data)[1]) == 100, name


def test_images_config_refuses_limits_below_one(tmp_path):
    (tmp_path / "tooldeck.toml").write_text("[images]\nmax_bytes = 0\n")
    with pytest.raises(ConfigError, match=r"images\.max_bytes"):
        load_config(tmp_path)
