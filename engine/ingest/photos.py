"""Photos and scans (.png, .jpg, .jpeg, .webp): one page whose text the import reads with
the OCR it reads scanned PDF pages with (engine/models/ocr.py).

The parser only checks the picture (its real format, its size) and hands back a page that
waits for OCR; the import's read step reads it (:func:`picture_rgb`). Pillow decodes it:
JPEG, PNG and WebP, turned upright by the EXIF orientation a phone writes.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

from engine.config import IngestLimits
from engine.errors import UnreadableFileError
from engine.ingest.text import check_file
from engine.types import ParsedSource, SegmentDraft, SegmentKind, SourceKind

PHOTO_EXTENSIONS = frozenset({".png", ".jpg", ".jpeg", ".webp"})
_FORMATS = frozenset({"PNG", "JPEG", "WEBP", "MPO"})  # MPO: a phone's JPEG with a depth map
# A 108-megapixel phone photo is 12,000 x 9,000; more is a decompression bomb (a small file
# that decodes to gigabytes), refused before any pixel is decoded.
MAX_PIXELS = 120_000_000
MAX_PHOTO_BYTES = 200 * 1024**2
# An icon or a button in a project's folder is no photo or scan: below this many pixels a
# side, a picture holds no text worth an OCR pass (a phone's photo is 3,000 px and more).
MIN_SIDE = 120


def _open(path: Path):  # -> PIL.Image.Image
    from PIL import Image, UnidentifiedImageError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(path)
    except UnidentifiedImageError as e:
        raise UnreadableFileError("not a picture (corrupt, or another kind of file)") from e
    except (Image.DecompressionBombWarning, Image.DecompressionBombError) as e:
        raise UnreadableFileError("picture too large (a decompression bomb?)") from e
    except OSError as e:
        raise UnreadableFileError(f"cannot read picture: {e}") from e
    if image.format not in _FORMATS:
        image.close()
        raise UnreadableFileError(f"not a photo: a {image.format} picture")
    width, height = image.size
    if width * height > MAX_PIXELS:
        image.close()
        raise UnreadableFileError(f"picture too large: {width} x {height} pixels")
    if min(width, height) < MIN_SIDE:
        image.close()
        raise UnreadableFileError(
            f"too small for a photo or a scan ({width} x {height} pixels): an icon is not read"
        )
    return image


def check_photo(path: Path, limits: IngestLimits) -> tuple[int, int]:
    """The picture's width and height, after its header and its data have been checked.

    Raises:
        UnreadableFileError: empty, too large, not JPEG/PNG/WebP, or damaged.
    """
    size = check_file(path, min(limits.max_file_bytes, MAX_PHOTO_BYTES))
    del size
    with _open(path) as image:
        try:
            image.verify()  # reads the data through (PNG checksums, truncation)
        except (OSError, SyntaxError, ValueError) as e:
            raise UnreadableFileError("picture is damaged (corrupt or truncated)") from e
        return image.size


def picture_rgb(path: Path) -> np.ndarray:
    """The picture upright (EXIF orientation), as RGB uint8 pixels.

    Raises:
        UnreadableFileError: damaged or not a picture.
    """
    from PIL import ImageOps

    with _open(path) as image:
        try:
            upright = ImageOps.exif_transpose(image)
            return np.asarray(upright.convert("RGB"))
        except (OSError, SyntaxError, ValueError) as e:
            raise UnreadableFileError("picture is damaged (corrupt or truncated)") from e


def parse_photo(path: Path, limits: IngestLimits) -> ParsedSource:
    """A photo or a scan as one SLIDE page waiting for OCR (``needs_ocr``).

    Raises:
        UnreadableFileError: see :func:`check_photo`.
    """
    check_photo(path, limits)
    page = SegmentDraft(kind=SegmentKind.SLIDE, text="", page=1, needs_ocr=True)
    return ParsedSource(kind=SourceKind.SLIDES, title=path.stem, segments=(page,))
