"""Removes the symbol tables from the Linux bundle's ELF files and closes the gap they leave.

    python installer/elf_compact.py PATH...     (files or folders; installer/coursedex.spec
                                                 runs it on dist/coursedex on Linux only)

What goes: ``.symtab`` (the static symbol table, for debuggers and ``nm``; the dynamic loader
reads ``.dynsym`` only), its ``.strtab`` and ``.symtab_shndx``, and two sections that only
build-checking tools read: ``.comment`` (the compilers' version strings) and
``.gnu.build.attributes`` (annobin's notes on the build flags, for annocheck). What stays:
everything the loader or a debugger needs to find the rest: ``.dynsym``/``.dynstr`` and every
other allocated section, ``.gnu_debuglink``/``.gnu_debugaltlink`` (where separate debug files
are), ``.gnu_debugdata`` (MiniDebugInfo, for backtraces), ``.shstrtab``, and PyInstaller's
``pydata`` (its archive, found through the section headers). The padding between segments
goes too where a whole page of it can (bytes after the last section stay: data appended to a
program is found from the end); on x86-64, a PT_LOAD aligned to 2 MB by an old linker or by
patchelf is aligned to the 4 KB page instead (``_load_align``).

Why not ``strip``: auditwheel's patchelf appends PT_LOAD segments after the symbol tables
(the new ``.dynstr``, ``.dynsym``, ``.dynamic`` of a wheel's library). ``strip`` and
``llvm-strip`` move those segments down by exactly the bytes removed, so their file offsets
are no longer congruent with their addresses modulo the page size, and ld.so refuses the
library ("ELF load command address/offset not page-aligned": numpy's OpenBLAS). Here every
byte range after a removed section moves down by a multiple of the largest alignment of what
it holds (a segment's p_align, a section's sh_addralign), so each segment keeps
p_offset = p_vaddr (mod p_align), which is what ld.so checks; what cannot move that far is
padded with zeros. LIEF removes sections without shrinking the file. A file that would not
get smaller is not written.

Section indexes do not change: a removed section's header becomes an SHT_NULL entry (64
bytes), because ``.dynsym``'s symbols name their section by index (``nm -D``, debuggers), and
renumbering would mean rewriting them inside loaded segments.

A file this does not understand is left as it was and the reason given: not ELF64
little-endian, a removed section inside a segment or overlapping anything kept, a kept
section linked to a removed one. The result is checked, written to a temporary file and
renamed over the original only when complete.
"""

from __future__ import annotations

import bisect
import os
import struct
import sys
from dataclasses import dataclass
from pathlib import Path

_EHDR = struct.Struct("<HHIQQQIHHHHHH")  # after e_ident (16 bytes)
_PHDR = struct.Struct("<IIQQQQQQ")  # p_type p_flags p_offset p_vaddr p_paddr p_filesz ...
_SHDR = struct.Struct("<IIQQQQIIQQ")  # sh_name sh_type sh_flags sh_addr sh_offset sh_size ...
_PT_LOAD, _SHT_SYMTAB, _SHT_STRTAB, _SHT_RELA, _SHT_NOBITS, _SHT_REL = 1, 2, 3, 4, 8, 9
_SHT_SYMTAB_SHNDX, _SHF_ALLOC, _SHF_INFO_LINK = 18, 0x2, 0x40
_EM_X86_64, _PAGE = 62, 0x1000
_UNREAD = (".comment", ".gnu.build.attributes")  # read by build-checking tools only


class NotCompactable(Exception):
    """The file is left as it was; the message says why."""


@dataclass(frozen=True)
class _Section:
    name: str
    type: int
    flags: int
    offset: int
    size: int
    link: int
    info: int
    align: int

    @property
    def in_file(self) -> int:
        """Bytes it occupies in the file (none for .bss-like sections)."""
        return 0 if self.type == _SHT_NOBITS else self.size

    @property
    def info_is_index(self) -> bool:
        return bool(self.flags & _SHF_INFO_LINK) or self.type in (_SHT_REL, _SHT_RELA)


@dataclass(frozen=True)
class _Segment:
    type: int
    offset: int
    vaddr: int
    filesz: int
    align: int


@dataclass(frozen=True)
class _Elf:
    data: bytes
    machine: int
    phoff: int
    shoff: int
    segments: list[_Segment]
    sections: list[_Section]


@dataclass(frozen=True)
class _Piece:
    """Kept bytes [start, end) of the old file, written at start - shift."""

    start: int
    end: int
    shift: int


def _parse(data: bytes) -> _Elf:
    if data[:4] != b"\x7fELF":
        raise NotCompactable("not an ELF file")
    if data[4:6] != b"\x02\x01":
        raise NotCompactable("not ELF64 little-endian")
    fields = _EHDR.unpack_from(data, 16)
    phoff, shoff, phentsize, phnum, shentsize, shnum, shstrndx = fields[4:6] + fields[8:]
    if shnum == 0 or shstrndx >= shnum or phnum == 0xFFFF:
        raise NotCompactable("no section headers, or an extended section count")
    if (phnum and phentsize != _PHDR.size) or shentsize != _SHDR.size:
        raise NotCompactable("unexpected header entry sizes")
    if phoff + phnum * _PHDR.size > len(data) or shoff + shnum * _SHDR.size > len(data):
        raise NotCompactable("header tables beyond the end of the file")
    segments = []
    for i in range(phnum):
        p_type, _, offset, vaddr, _, filesz, _, align = _PHDR.unpack_from(data, phoff + 56 * i)
        segments.append(_Segment(p_type, offset, vaddr, filesz, align))
    raw = [_SHDR.unpack_from(data, shoff + 64 * i) for i in range(shnum)]
    names_at = raw[shstrndx][4]

    def name(at: int) -> str:
        start = names_at + at
        return data[start : data.find(b"\0", start)].decode("latin-1")

    sections = [_Section(name(s[0]), s[1], s[2], s[4], s[5], s[6], s[7], s[8]) for s in raw]
    for s in sections:
        if s.offset + s.in_file > len(data):
            raise NotCompactable(f"section {s.name} beyond the end of the file")
    return _Elf(data, fields[1], phoff, shoff, segments, sections)


def _removable(elf: _Elf) -> set[int]:
    """Indexes of the sections to remove; refuses when a kept one refers to one of them."""
    sections = elf.sections
    gone = {
        i
        for i, s in enumerate(sections)
        if not s.flags & _SHF_ALLOC and (s.type == _SHT_SYMTAB or s.name in _UNREAD)
    }
    gone |= {i for i, s in enumerate(sections) if s.type == _SHT_SYMTAB_SHNDX and s.link in gone}
    shstrndx = _EHDR.unpack_from(elf.data, 16)[-1]
    for j in {sections[i].link for i in gone if sections[i].type == _SHT_SYMTAB}:
        strtab = sections[j]
        shared = any(s.link == j for i, s in enumerate(sections) if i not in gone)
        unread = strtab.type == _SHT_STRTAB and not strtab.flags & _SHF_ALLOC
        if unread and j != shstrndx and not shared:
            gone.add(j)
    for s in (s for i, s in enumerate(sections) if i not in gone):
        if s.link in gone or (s.info_is_index and s.info in gone):
            raise NotCompactable(f"section {s.name} refers to a removed section")
    return gone - {0}


def _load_align(elf: _Elf, segment: _Segment) -> int:
    """A PT_LOAD's alignment in the result: an x86-64 page at most. Linkers before binutils
    2.31 aligned them to 2 MB, and patchelf places its new segment at the next 2 MB of the
    file (ctranslate2's libgomp, Pillow's libXau: 2 MB of zeros each); x86-64 pages are 4 KB
    and ld.so checks offsets modulo p_align, so 4 KB lets that padding go."""
    if elf.machine == _EM_X86_64 and segment.type == _PT_LOAD:
        return min(segment.align, _PAGE)
    return segment.align


def _kept_items(elf: _Elf, gone: set[int]) -> list[tuple[str, int, int, int]]:
    """(what, offset, bytes in the file, alignment) of everything that stays."""
    count = len(elf.sections)
    items = [
        ("the ELF header", 0, 64, 8),
        ("the program headers", elf.phoff, _PHDR.size * len(elf.segments), 8),
        ("the section headers", elf.shoff, _SHDR.size * count, 8),
    ]
    items += [
        (f"segment {i} (type {p.type:#x})", p.offset, p.filesz, _load_align(elf, p))
        for i, p in enumerate(elf.segments)
    ]
    items += [
        (f"section {s.name}", s.offset, s.in_file, s.align)
        for i, s in enumerate(elf.sections)
        if i not in gone and i != 0
    ]
    return items


def _unused_ranges(items: list[tuple[str, int, int, int]], limit: int) -> list[tuple[int, int]]:
    """The byte ranges no kept item covers, up to the last kept or removed byte (``limit``):
    the removed sections and the padding between segments. Bytes after that stay (data
    appended to a program is found from the end of the file)."""
    ranges, covered = [], 0
    for _, offset, size, _ in sorted(items, key=lambda item: item[1]):
        if size and offset > covered:
            ranges.append((covered, offset))
        covered = max(covered, offset + size)
    return [*ranges, (covered, limit)] if limit > covered else ranges


def _layout(elf: _Elf, gone: set[int]) -> list[_Piece]:
    """The kept byte ranges and how far each moves down: by the bytes removed before it so
    far, rounded down to a multiple of the largest alignment of what starts in it."""
    items = _kept_items(elf, gone)
    for what, offset, size, align in items:
        if align & (align - 1):
            raise NotCompactable(f"{what} has an alignment that is not a power of two")
        for s in (elf.sections[i] for i in gone):
            if size and s.in_file and offset < s.offset + s.in_file and s.offset < offset + size:
                raise NotCompactable(f"a removed section lies inside {what}")
    limit = max((s.offset + s.in_file for s in (elf.sections[i] for i in gone)), default=0)
    removed = _unused_ranges(items, limit)
    bounds = [0] + [b for r in removed for b in r] + [len(elf.data)]
    spans = list(zip(bounds[::2], bounds[1::2], strict=True))
    ends = [end for _, end in removed]
    aligns = [1] * len(spans)
    for _, offset, _, align in items:
        k = bisect.bisect_right(ends, offset)
        aligns[k] = max(aligns[k], align)
    pieces, shift = [], 0
    for k, (start, end) in enumerate(spans):
        if k:
            shift = (shift + removed[k - 1][1] - removed[k - 1][0]) // aligns[k] * aligns[k]
        pieces.append(_Piece(start, end, shift))
    return pieces


def _moved(pieces: list[_Piece], offset: int) -> int:
    """Where an old file offset lands (one inside a removed range: at its piece's end)."""
    k = bisect.bisect_right([p.start for p in pieces], offset) - 1
    return min(offset, pieces[k].end) - pieces[k].shift


def _rewrite(elf: _Elf, gone: set[int], pieces: list[_Piece]) -> bytes:
    last = pieces[-1]
    out = bytearray(last.end - last.shift)
    for p in pieces:
        out[p.start - p.shift : p.end - p.shift] = elf.data[p.start : p.end]
    phoff, shoff = _moved(pieces, elf.phoff), _moved(pieces, elf.shoff)
    struct.pack_into("<QQ", out, 32, phoff, shoff)  # e_phoff, e_shoff
    for i, p in enumerate(elf.segments):
        struct.pack_into("<Q", out, phoff + 56 * i + 8, _moved(pieces, p.offset))
        struct.pack_into("<Q", out, phoff + 56 * i + 48, _load_align(elf, p))
    for i, s in enumerate(elf.sections):
        at = shoff + 64 * i
        if i in gone:
            out[at : at + 64] = bytes(64)
        else:
            struct.pack_into("<Q", out, at + 24, _moved(pieces, s.offset))
    return bytes(out)


def _check(old: _Elf, gone: set[int], data: bytes) -> None:
    """The new file parses, keeps every section's bytes, and ld.so would map its segments."""
    new = _parse(data)
    for i, (a, b) in enumerate(zip(old.sections, new.sections, strict=True)):
        before = old.data[a.offset : a.offset + a.in_file]
        if i not in gone and before != data[b.offset : b.offset + b.in_file]:
            raise NotCompactable(f"section {a.name} would change (a bug here)")
    for p in new.segments:
        if p.type == _PT_LOAD and p.align and (p.vaddr - p.offset) % p.align:
            raise NotCompactable("a segment would lose its alignment (a bug here)")


def compact(path: Path) -> int:
    """Removes the unread sections from the ELF file at ``path``; returns the bytes saved.

    Raises:
        NotCompactable: the file was left as it was, for the reason given.
    """
    data = path.read_bytes()
    elf = _parse(data)
    gone = _removable(elf)
    new = _rewrite(elf, gone, _layout(elf, gone))
    if len(new) >= len(data):
        return 0  # nothing whole to take out: the file stays as it is
    _check(elf, gone, new)
    temporary = path.with_name(f".{path.name}.compact")
    try:
        temporary.write_bytes(new)
        os.chmod(temporary, path.stat().st_mode & 0o7777)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    return len(data) - len(new)


def elf_files(folder: Path) -> list[Path]:
    """Every ELF file under ``folder``, in order (links are not followed)."""
    found = []
    for path in sorted(folder.rglob("*")):
        if path.is_symlink() or not path.is_file():
            continue
        with path.open("rb") as f:
            if f.read(4) == b"\x7fELF":
                found.append(path)
    return found


def section_names(path: Path) -> set[str]:
    """The names of the sections of the ELF file at ``path``.

    Raises:
        NotCompactable: the file cannot be read as ELF64 little-endian.
    """
    return {s.name for s in _parse(path.read_bytes()).sections}


def compact_tree(folder: Path) -> tuple[int, list[tuple[Path, str]]]:
    """Compacts every ELF file under ``folder`` (links are not followed); returns the bytes
    saved and the files left as they were, with the reason."""
    saved, refused = 0, []
    for path in elf_files(folder):
        try:
            saved += compact(path)
        except NotCompactable as e:
            refused.append((path, str(e)))
    return saved, refused


def main(argv: list[str]) -> int:
    saved, refused = 0, []
    for arg in map(Path, argv):
        if arg.is_dir():
            more, why = compact_tree(arg)
            saved, refused = saved + more, refused + why
        else:
            try:
                saved += compact(arg)
            except NotCompactable as e:
                refused.append((arg, str(e)))
    for path, why in refused:
        print(f"elf_compact: left as it was: {path}: {why}")
    print(f"elf_compact: saved {saved / 1e6:.1f} MB")
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
