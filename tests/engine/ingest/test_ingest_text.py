"""Text decoding shared by all text parsers: BOMs, UTF-8, legacy code pages, binary."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import UnreadableFileError
from engine.ingest.text import decode_text, human_size, looks_binary, read_text


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "utf-16-be", "utf-32", "utf-32-be"])
def test_bom_decides_encoding(encoding: str) -> None:
    text = "Größe — 日本語\nline two"
    data = text.encode(encoding)
    if encoding == "utf-16-be":
        data = b"\xfe\xff" + data
    if encoding == "utf-32-be":
        data = b"\x00\x00\xfe\xff" + data
    assert decode_text(data) == text


def test_utf8_without_bom_and_crlf_normalized() -> None:
    assert decode_text(b"a\r\nb\rc\n") == "a\nb\nc\n"


@pytest.mark.parametrize(
    ("text", "encoding"),
    [
        ("Le café est très chaud, élève naïve.", "latin-1"),
        ("Über die Straße, señor, à bientôt.", "cp1252"),
        ("Zażółć gęślą jaźń, to jest test napisów.", "cp1250"),
        ("Привет, как дела? Это тест субтитров.", "cp1251"),
    ],
)
def test_legacy_code_pages(text: str, encoding: str) -> None:
    assert decode_text(text.encode(encoding)) == text


def test_binary_rejected_with_reason() -> None:
    with pytest.raises(UnreadableFileError, match=r"^not a subtitle file \(binary data\)$"):
        decode_text(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "a subtitle file")
    assert looks_binary(bytes(range(0, 32)) * 10)
    assert not looks_binary(b"plain\ttext\n")


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_utf16_without_bom_is_text_not_binary(encoding: str) -> None:
    """It was refused as "binary data" for its NUL bytes."""
    text = "1\n00:00:01,000 --> 00:00:02,000\nCafé: the okapi\n"
    assert decode_text(text.encode(encoding), "a subtitle file") == text
    # Binary data with NULs in every other byte is still binary: it decodes to control codes.
    with pytest.raises(UnreadableFileError, match="binary"):
        decode_text(bytes([1, 0, 2, 0, 3, 0, 4, 0] * 8), "a text file")


def test_read_text_empty_and_too_large(tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    with pytest.raises(UnreadableFileError, match=r"^empty file$"):
        read_text(empty, 100)
    blank = tmp_path / "blank.txt"
    blank.write_text("  \n\n")
    with pytest.raises(UnreadableFileError, match="empty file"):
        read_text(blank, 100)
    big = tmp_path / "big.txt"
    big.write_text("x" * 2048)
    with pytest.raises(UnreadableFileError, match=r"file too large \(2 KB, limit 1 KB\)"):
        read_text(big, 1024)
    # As an import reports a file given by name that is not there (not_a_file).
    with pytest.raises(UnreadableFileError, match=r"^file not found$"):
        read_text(tmp_path / "missing.txt", 100)


def test_human_size() -> None:
    assert human_size(10) == "10 bytes"
    assert human_size(1536) == "1.5 KB"
    assert human_size(300 * 1024**2) == "300 MB"
    assert human_size(1024**3) == "1 GB"
