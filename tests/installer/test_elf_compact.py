"""installer/elf_compact.py on real libraries: one built here with gcc, as it comes and as
auditwheel edits a wheel's library (patchelf appends segments after the symbol tables, where
strip breaks it) and as old linkers aligned it (2 MB), and numpy's OpenBLAS with its Fortran
runtime. The compacted copies load
and compute what the originals do, are smaller, and every segment's offset stays congruent
with its address; a file the tool does not understand is left byte for byte as it was."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or not all(map(shutil.which, ("gcc", "readelf"))),
    reason="ELF libraries (Linux, gcc, readelf)",
)

_TINY_C = r"""
static const char greeting[] = "compacted";  /* .rodata */
int counter = 41;                              /* .data */
int value(void) { return greeting[3] + counter++; }
const char *text(void) { return greeting; }
"""
# Local functions that only the symbol table names: 400 of them make it several pages long,
# as a real library's is, so that whole pages can go.
_LOCALS = "".join(
    f"__attribute__((used)) static int helper_{i}_of_the_symbol_table(void) {{ return {i}; }}\n"
    for i in range(400)
)
_USE_TINY = """
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
lib.text.restype = ctypes.c_char_p
print(lib.value(), lib.value(), lib.text().decode())
"""
# numpy's OpenBLAS (64-bit integers, scipy_ prefix): a dot product and a 2x3 by 3x2 product.
_USE_BLAS = """
import ctypes, glob, sys
lib = ctypes.CDLL(glob.glob(sys.argv[1] + "/libscipy_openblas*")[0])
i64, ptr = ctypes.c_int64, ctypes.c_void_p
def doubles(*values):
    return (ctypes.c_double * len(values))(*values)
ddot = lib.scipy_cblas_ddot64_
ddot.restype, ddot.argtypes = ctypes.c_double, [i64, ptr, i64, ptr, i64]
print(ddot(5, doubles(1.5, 2, 3, 4, 5), 1, doubles(2, 0.5, 1, 1, 3), 1))
a, b, c = doubles(1, 2, 3, 4, 5, 6), doubles(7, 8, 9, 10, 11, 12), doubles(0, 0, 0, 0)
dgemm = lib.scipy_cblas_dgemm64_
dgemm.argtypes = [i64, i64, i64, i64, i64, i64, ctypes.c_double, ptr, i64, ptr, i64,
                  ctypes.c_double, ptr, i64]
dgemm(101, 111, 111, 2, 2, 3, 1.0, a, 3, b, 2, 0.0, c, 2)  # row-major, no transposes
print(list(c))
"""


@pytest.fixture(scope="module")
def tool() -> ModuleType:
    return load_script(ROOT / "installer" / "elf_compact.py")


def _patchelf() -> str:
    found = shutil.which("patchelf") or str(Path(sys.executable).with_name("patchelf"))
    if not Path(found).is_file():
        pytest.fail("patchelf is missing: it is a dev dependency (uv sync)")
    return found


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """libtiny.so as gcc makes it, a copy patchelf edited as auditwheel does, and one linked
    for 2 MB pages as binutils before 2.31 did (ctranslate2's libgomp), then edited."""
    folder = tmp_path_factory.mktemp("tiny")
    (folder / "tiny.c").write_text(_TINY_C + _LOCALS)
    plain = folder / "plain" / "libtiny.so"
    plain.parent.mkdir()
    subprocess.run(
        ["gcc", "-shared", "-fPIC", "-O1", "-o", str(plain), str(folder / "tiny.c")], check=True
    )
    patched = folder / "patched" / "libtiny.so"
    patched.parent.mkdir()
    shutil.copy2(plain, patched)
    rpath = "$ORIGIN/" + "/".join(["a-long-folder-name"] * 20)  # too long to fit in place
    subprocess.run([_patchelf(), "--set-rpath", rpath, str(patched)], check=True)
    subprocess.run([_patchelf(), "--add-needed", "libm.so.6", str(patched)], check=True)
    old = folder / "2mb" / "libtiny.so"
    old.parent.mkdir()
    subprocess.run(["gcc", "-shared", "-fPIC", "-O1", "-Wl,-z,max-page-size=0x200000",
                    "-o", str(old), str(folder / "tiny.c")], check=True)  # fmt: skip
    subprocess.run([_patchelf(), "--set-rpath", rpath, str(old)], check=True)
    return {"plain": plain, "patched": patched, "2mb": old}


def _run(code: str, *args: Path) -> str:
    run = subprocess.run(
        [sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout


def _readelf(*args: str) -> str:
    run = subprocess.run(["readelf", "-W", *args], capture_output=True, text=True, check=True)
    assert run.stderr == "", run.stderr  # readelf warns about any inconsistent header
    return run.stdout


def _sections(path: Path) -> dict[str, tuple[int, int, int]]:
    """Section name -> (index, file offset, size), from readelf."""
    found = {}
    for m in re.finditer(
        r"\[\s*(\d+)\]\s+(\S+)\s+\S+\s+[0-9a-f]+ ([0-9a-f]+) ([0-9a-f]+)", _readelf("-S", str(path))
    ):
        found[m[2]] = (int(m[1]), int(m[3], 16), int(m[4], 16))
    return found


def _loads(path: Path) -> list[tuple[int, int, int]]:
    """(offset, address, alignment) of each PT_LOAD, from readelf."""
    found = re.findall(r"^\s*LOAD\s+(\S+)\s+(\S+)\s+\S+\s+\S+\s+\S+.*\s(\S+)$",
                       _readelf("-l", str(path)), re.M)  # fmt: skip
    return [(int(o, 16), int(v, 16), int(a, 16)) for o, v, a in found]


def _edit(path: Path, offset: int, fmt: str, *values: int) -> None:
    data = bytearray(path.read_bytes())
    struct.pack_into(fmt, data, offset, *values)
    path.write_bytes(bytes(data))


def _assert_compacted(original: Path, copy: Path) -> None:
    assert copy.stat().st_size < original.stat().st_size
    assert not {".symtab", ".strtab"} & set(_sections(copy))
    assert _loads(copy), "no segments read"
    for offset, address, align in _loads(copy):
        assert (address - offset) % align == 0, (hex(offset), hex(address), hex(align))
    # Indexes kept: the dynamic symbols still name the same sections.
    assert _readelf("--dyn-syms", str(copy)) == _readelf("--dyn-syms", str(original))


@pytest.mark.parametrize("kind", ["plain", "patched", "2mb"])
def test_a_compacted_library_loads_and_gives_the_same_results(
    tool: ModuleType, tiny: dict[str, Path], kind: str, tmp_path: Path
) -> None:
    original = tiny[kind]
    if kind == "patched":  # what strip breaks: a segment after the symbol table
        symtab_at = _sections(original)[".symtab"][1]
        assert any(offset > symtab_at for offset, _, _ in _loads(original))
    copy = tmp_path / original.name
    shutil.copy2(original, copy)
    saved = tool.compact(copy)
    assert saved == original.stat().st_size - copy.stat().st_size
    _assert_compacted(original, copy)
    assert _run(_USE_TINY, copy) == _run(_USE_TINY, original) == "153 154 compacted\n"
    assert tool.compact(copy) == 0  # nothing left to remove: the file is not written again
    assert [p.name for p in tmp_path.iterdir()] == [copy.name]


def test_two_megabyte_padding_goes_on_x86_64_only(
    tool: ModuleType, tiny: dict[str, Path], tmp_path: Path
) -> None:
    """Segments 2 MB apart in the file (2 MB p_align) come together at 4 KB pages on x86-64;
    for another machine (here: the same file marked AArch64, whose pages may be 64 KB) the
    alignment stays, and so does the padding."""
    original = tiny["2mb"]
    assert {align for _, _, align in _loads(original)} == {0x200000}
    copy = tmp_path / "x86-64.so"
    shutil.copy2(original, copy)
    tool.compact(copy)
    assert copy.stat().st_size < original.stat().st_size / 20  # 8 MB, mostly zeros, to 60 KB
    assert {align for _, _, align in _loads(copy)} == {0x1000}
    aarch64 = tmp_path / "aarch64.so"
    shutil.copy2(original, aarch64)
    _edit(aarch64, 18, "<H", 183)  # e_machine EM_AARCH64
    tool.compact(aarch64)
    assert {align for _, _, align in _loads(aarch64)} == {0x200000}
    assert aarch64.stat().st_size > original.stat().st_size - 0x200000


def test_a_symbol_table_after_the_section_headers_goes_too(
    tool: ModuleType, tiny: dict[str, Path], tmp_path: Path
) -> None:
    """The symbol table and its strings moved past the section headers, at the end of the
    file, and their old place left empty: both go, and the file ends up as small as when
    they were in their place."""
    path = tmp_path / "libtiny.so"
    shutil.copy2(tiny["plain"], path)
    sections, data = _sections(path), bytearray(path.read_bytes())
    shoff = struct.unpack_from("<Q", data, 40)[0]
    for name in (".symtab", ".strtab"):
        index, offset, size = sections[name]
        data += bytes(-len(data) % 8)
        struct.pack_into("<Q", data, shoff + 64 * index + 24, len(data))
        data += data[offset : offset + size]
        data[offset : offset + size] = bytes(size)
    path.write_bytes(bytes(data))
    in_place = tmp_path / "in-place.so"
    shutil.copy2(tiny["plain"], in_place)
    tool.compact(in_place)
    tool.compact(path)
    assert path.stat().st_size == in_place.stat().st_size
    assert _run(_USE_TINY, path) == "153 154 compacted\n"


def test_bytes_after_the_last_section_stay_at_the_end(
    tool: ModuleType, tiny: dict[str, Path], tmp_path: Path
) -> None:
    """Data appended to a program is found from the end of the file (a self-extracting
    archive, a signature): it stays, after the compacted ELF."""
    path = tmp_path / "libtiny.so"
    shutil.copy2(tiny["patched"], path)
    with path.open("ab") as f:
        f.write(b"\0" * 8192 + b"appended archive")
    assert tool.compact(path) > 0
    assert path.read_bytes().endswith(b"\0" * 8192 + b"appended archive")
    assert _run(_USE_TINY, path) == "153 154 compacted\n"


def test_numpys_openblas_compacted_computes_the_same(tool: ModuleType, tmp_path: Path) -> None:
    import numpy

    libs = Path(numpy.__file__).parent.parent / "numpy.libs"
    blas = sorted(libs.glob("libscipy_openblas*"))
    if not blas:
        pytest.skip("this numpy has no OpenBLAS of its own")
    copies = tmp_path / "numpy.libs"
    shutil.copytree(libs, copies)
    tables = sum(_sections(blas[0])[name][2] for name in (".symtab", ".strtab"))
    saved, refused = tool.compact_tree(copies)
    assert refused == []
    _assert_compacted(blas[0], copies / blas[0].name)
    assert saved >= tables - 2 * 4096  # all but the padding that keeps segments aligned
    assert _run(_USE_BLAS, copies) == _run(_USE_BLAS, libs) == "26.0\n[58.0, 64.0, 139.0, 154.0]\n"


def _symtab_inside_a_segment(path: Path) -> None:
    """PT_GNU_STACK (no bytes) made to cover the whole file, symbol tables included."""
    data = path.read_bytes()
    phoff, phnum = struct.unpack_from("<Q", data, 32)[0], struct.unpack_from("<H", data, 56)[0]
    for i in range(phnum):
        if struct.unpack_from("<I", data, phoff + 56 * i)[0] == 0x6474E551:  # PT_GNU_STACK
            _edit(path, phoff + 56 * i + 8, "<QQQQ", 0, 0, 0, len(data))
            return
    raise AssertionError("no PT_GNU_STACK")


def _kept_section_links_to_symtab(path: Path) -> None:
    """.dynamic's sh_link (its string table) made to point at .symtab."""
    sections = _sections(path)
    shoff = struct.unpack_from("<Q", path.read_bytes(), 40)[0]
    _edit(path, shoff + 64 * sections[".dynamic"][0] + 40, "<I", sections[".symtab"][0])


_UNHANDLED = {
    "a removed section inside a segment": _symtab_inside_a_segment,
    "a kept section refers to a removed one": _kept_section_links_to_symtab,
    "big-endian": lambda path: _edit(path, 5, "<B", 2),
    "32-bit": lambda path: _edit(path, 4, "<B", 1),
    "not ELF": lambda path: path.write_bytes(b"#!/bin/sh\necho not a library\n"),
}


@pytest.mark.parametrize("case", list(_UNHANDLED))
def test_a_file_it_does_not_understand_is_left_as_it_was(
    tool: ModuleType, tiny: dict[str, Path], case: str, tmp_path: Path
) -> None:
    path = tmp_path / "libtiny.so"
    shutil.copy2(tiny["patched"], path)
    _UNHANDLED[case](path)
    before = path.read_bytes()
    with pytest.raises(tool.NotCompactable):
        tool.compact(path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == [path.name]


def test_a_folder_is_walked_without_following_links(
    tool: ModuleType, tiny: dict[str, Path], tmp_path: Path
) -> None:
    """The bundle's walk: ELF files compacted, the others and links untouched, the files it
    cannot handle listed with the reason."""
    shutil.copy2(tiny["patched"], tmp_path / "libtiny.so")
    (tmp_path / "libtiny.so.1").symlink_to("libtiny.so")
    (tmp_path / "notes.txt").write_text("not a library")
    shutil.copy2(tiny["plain"], tmp_path / "big-endian.so")
    _edit(tmp_path / "big-endian.so", 5, "<B", 2)
    saved, refused = tool.compact_tree(tmp_path)
    assert saved == tiny["patched"].stat().st_size - (tmp_path / "libtiny.so").stat().st_size > 0
    assert refused == [(tmp_path / "big-endian.so", "not ELF64 little-endian")]
    assert (tmp_path / "libtiny.so.1").is_symlink()
    assert _run(_USE_TINY, tmp_path / "libtiny.so.1") == "153 154 compacted\n"


def test_section_names_are_readelfs(
    tool: ModuleType, tiny: dict[str, Path], tmp_path: Path
) -> None:
    """What the spec's debug-information step reads instead of running readelf on each file:
    the same names, .debug_info among them when gcc -g wrote it."""
    debug = tmp_path / "libdebug.so"
    source = tiny["plain"].parent.parent / "tiny.c"
    subprocess.run(["gcc", "-shared", "-fPIC", "-g", "-o", str(debug), str(source)], check=True)
    for path in (tiny["plain"], tiny["patched"], debug):
        named = set(_sections(path)) - {"NULL"}  # readelf: the unnamed NULL section 0
        assert tool.section_names(path) == named | {""}
    assert ".debug_info" in tool.section_names(debug)
    assert ".debug_info" not in tool.section_names(tiny["plain"])
    assert [p.name for p in tool.elf_files(tiny["plain"].parent.parent)] == ["libtiny.so"] * 3
