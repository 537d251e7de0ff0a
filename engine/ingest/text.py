"""Robust text decoding shared by every text parser (subtitles, notes, code).

Order: a byte-order mark decides (UTF-8/16/32); else strict UTF-8; else the bytes must look
like text (no NUL, few control bytes) and charset-normalizer guesses the legacy code page.
"""

from __future__ import annotations

import codecs
import logging
from pathlib import Path

import charset_normalizer

from engine.errors import UnreadableFileError
from engine.plain_text import human_size
from engine.regular_files import open_regular, regular_file

log = logging.getLogger(__name__)

# UTF-32 first: the UTF-32-LE mark starts with the UTF-16-LE mark.
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# Control bytes that never occur in text files (tab, newlines, form feed and escape do).
_CONTROL_BYTES = frozenset(range(0x20)) - {0x09, 0x0A, 0x0C, 0x0D, 0x1B}
_SNIFF_BYTES = 64 * 1024
_MAX_CONTROL_RATIO = 0.05
# Western European text is by far the most common legacy encoding of subtitles and notes;
# charset-normalizer often cannot tell cp1250 from cp1252 on short text and picks cp1250.
_PREFERRED_LEGACY = "cp1252"


def looks_binary(data: bytes) -> bool:
    """True when bytes without a BOM are not text: a NUL byte or too many control bytes."""
    sample = data[:_SNIFF_BYTES]
    if b"\x00" in sample:
        return True
    if not sample:
        return False
    controls = sum(1 for b in sample if b in _CONTROL_BYTES)
    return controls / len(sample) > _MAX_CONTROL_RATIO


def decode_text(data: bytes, what: str = "text") -> str:
    """Decode file bytes to text with ``\\n`` line ends.

    Args:
        data: the raw file content.
        what: what the file should be, for the error message ("a subtitle file").

    Raises:
        UnreadableFileError: the bytes are binary or no encoding fits.
    """
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                text = data[len(bom) :].decode(encoding)
            except UnicodeDecodeError as e:
                raise UnreadableFileError(f"not {what} ({encoding} text is corrupt)") from e
            return _normalize_newlines(text)
    utf16 = _utf16_without_bom(data)
    if utf16 is not None:
        return _normalize_newlines(utf16)
    if looks_binary(data):
        raise UnreadableFileError(f"not {what} (binary data)")
    try:
        return _normalize_newlines(data.decode("utf-8"))
    except UnicodeDecodeError:
        pass
    return _normalize_newlines(_decode_legacy(data, what))


def _utf16_without_bom(data: bytes) -> str | None:
    """UTF-16 text written without a byte order mark (it was called "binary data"): mostly
    Latin text puts a NUL in every other byte, on the odd bytes for little-endian and the
    even ones for big-endian. The text it decodes to must hold no NUL or control characters."""
    sample = data[: _SNIFF_BYTES & ~1]
    if len(sample) < 4 or len(data) % 2:
        return None
    even, odd = sample[0::2], sample[1::2]
    half = len(sample) // 2
    for encoding, zeros, other in (("utf-16-le", odd, even), ("utf-16-be", even, odd)):
        if zeros.count(0) >= 0.6 * half and other.count(0) == 0:
            try:
                text = data.decode(encoding)
            except UnicodeDecodeError:
                return None
            controls = sum(1 for ch in text[:4096] if ord(ch) < 32 and ch not in "\t\n\r\f")
            return text if controls == 0 else None
    return None


def _decode_legacy(data: bytes, what: str) -> str:
    results = charset_normalizer.from_bytes(data)
    best = results.best()
    if best is None:
        raise UnreadableFileError(f"not {what} (unknown text encoding)")
    encoding = best.encoding
    if encoding != _PREFERRED_LEGACY:
        for match in results:
            if (
                _PREFERRED_LEGACY in match.could_be_from_charset
                and match.chaos <= best.chaos
                and match.coherence >= best.coherence
            ):
                encoding = _PREFERRED_LEGACY
                break
    log.info("decoded legacy text as %s", encoding)
    try:
        return data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as e:
        raise UnreadableFileError(f"not {what} (unknown text encoding)") from e


def _normalize_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def check_file(path: Path, max_bytes: int) -> int:
    """Return the size of a file that is non-empty and within ``max_bytes``.

    Raises:
        UnreadableFileError: missing, not a regular file, empty, or too large.
    """
    size = regular_file(path, named=False).st_size
    if size == 0:
        raise UnreadableFileError("empty file")
    if size > max_bytes:
        raise UnreadableFileError(
            f"file too large ({human_size(size)}, limit {human_size(max_bytes)})"
        )
    return size


def read_bytes(path: Path, max_bytes: int) -> bytes:
    """Read a whole file, refusing empty, oversized and unreadable files.

    Raises:
        UnreadableFileError: empty, larger than ``max_bytes``, or the OS refuses to read it.
    """
    check_file(path, max_bytes)
    try:
        with open_regular(path, named=False) as f:
            # The file may have grown since stat(): never read more than the limit.
            data = f.read(max_bytes + 1)
    except OSError as e:
        raise UnreadableFileError(f"cannot read file: {e.strerror or e}") from e
    if len(data) > max_bytes:
        raise UnreadableFileError(f"file too large (limit {human_size(max_bytes)})")
    if not data:
        raise UnreadableFileError("empty file")
    return data


def read_text(path: Path, max_bytes: int, what: str = "text") -> str:
    """Read and decode a text file (see :func:`decode_text`).

    Raises:
        UnreadableFileError: empty, too large, binary, or undecodable.
    """
    text = decode_text(read_bytes(path, max_bytes), what)
    if not text.strip():
        raise UnreadableFileError("empty file (only whitespace)")
    return text
