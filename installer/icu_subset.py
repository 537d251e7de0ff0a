"""Qt's ICU data cut to what Qt Core asks ICU for (installer/slim_linux.py calls it).

PySide6's libicudata.so.73 is one 31 MB table, every ICU item for every locale. Qt Core is the
only library in the bundle that loads ICU, and its imports (``readelf --dyn-syms
libQt6Core.so.6``: ucol_*, ucnv_*, ucal_*, u_strToUpper/Lower) use four kinds of data:

- collation (QCollator: sorting in file dialogs and locale-aware views): the root order
  (ucadata.icu, coll/root.res) and the tailorings of the European languages below. Any other
  language sorts by the root order, as ICU does for a language it has no tailoring for.
- converters (QStringConverter by name): UTF-8/16/32, Latin-1 and ASCII are built into ICU's
  code; the table keeps the converter aliases and the single-byte Windows, ISO-8859, DOS,
  KOI8 and Mac Roman tables. The CJK multi-byte tables (Shift-JIS, GBK, Big5, EUC-*, 3 MB)
  go: the app decodes files in Python, and Qt then reports such a codec as unavailable.
- time zones (ucal_*): zoneinfo64, the metazones and the English zone names.
- case mapping: ICU's case data is compiled into libicuuc, not read from this table.

Nothing asks for break iterators (Qt finds word and line boundaries with its own tables),
transliteration, number spelling, unit, currency, language or region names, or the
normalisation forms ICU does not compile in (NFKC, UTS 46, StringPrep), so they all go. An
item ICU cannot find makes it fall back (to the root locale, or "no such converter"), never
fail differently. The result keeps the name and soname libicudata.so.73 and the entry point
icudt73_dat. Needs icupkg and genccode (Debian's icu-devtools) and gcc.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Languages whose collation tailoring stays (with their regional and script variants).
COLLATION_LANGUAGES = _names(
    "bg bs ca cs cy da de el en eo es et eu fi fo fr ga gl hr hu is it lb lt lv mk mt nb nl nn "
    "no pl pt ro ru se sk sl sq sr sv tr uk"
)
# Top-level items ICU reads whatever the locale: locale fallback and aliases, calendars and
# time zones, the converter aliases, the version.
_TOP = _names(
    "pool.res res_index.res root.res en.res supplementalData.res likelySubtags.res metadata.res "
    "keyTypeData.res numberingSystems.res metaZones.res timezoneTypes.res windowsZones.res "
    "zoneinfo64.res icuver.res icustd.res cnvalias.icu"
)
# The converters of the encodings web browsers decode (the WHATWG Encoding Standard), as ICU
# names their tables, plus DOS 437/850/852: UTF-8/16/32, Latin-1 and ASCII need none.
CONVERTERS = _names(
    "ibm-5346_P100-1998 ibm-5347_P100-1998 ibm-5348_P100-1997 ibm-5349_P100-1998 "
    "ibm-5350_P100-1998 ibm-9447_P100-2002 ibm-9448_X100-2005 ibm-9449_P100-2002 "
    "ibm-5354_P100-1998 ibm-912_P100-1995 ibm-913_P100-2000 ibm-914_P100-1995 ibm-915_P100-1995 "
    "ibm-1089_P100-1995 ibm-9005_X110-2007 ibm-5012_P100-1999 iso-8859_10-1998 "
    "ibm-921_P100-1995 iso-8859_14-1998 ibm-923_P100-1998 ibm-878_P100-1996 ibm-1168_P100-2002 "
    "ibm-866_P100-1995 ibm-1386_P100-2001 ibm-1373_P100-2002 ibm-437_P100-1995 "
    "ibm-850_P100-1995 ibm-852_P100-1995 macos-0_2-10.2 macos-7_3-10.2 windows-874-2000 "
    "windows-936-2000 gb18030 windows-950-2000 euc-jp-2007 ibm-943_P15A-2003 "
    "ibm-970_P110_P110-2006_U2 jisx-212"
)


def keep(item: str) -> bool:
    """Whether an item of the ICU table (as ``icupkg -l`` names it) stays."""
    tree, _, name = item.rpartition("/")
    if tree == "":
        return name in _TOP or name.removesuffix(".cnv") in CONVERTERS
    if tree == "coll":
        language = re.split(r"[_.]", name, maxsplit=1)[0]
        return name in ("ucadata.icu", "res_index.res", "root.res") or (
            language in COLLATION_LANGUAGES
        )
    if tree == "zone":
        return name in ("pool.res", "res_index.res", "root.res", "en.res")
    return False


def _table(library: Path) -> tuple[str, bytes]:
    """The entry point's name (icudtNN) and the table it holds, read off the ELF file."""
    symbols = subprocess.run(
        ["readelf", "-W", "--dyn-syms", str(library)], capture_output=True, text=True, check=True
    ).stdout
    table = r"\s([0-9a-f]+)\s+(0x[0-9a-f]+|\d+)\s+OBJECT\s.*\s(icudt\d+)_dat$"
    found = re.search(table, symbols, re.M)
    if found is None:
        raise SystemExit(f"icu_subset: {library} has no icudtNN_dat table")
    address, size, entry = int(found[1], 16), int(found[2], 0), found[3]
    sections = subprocess.run(
        ["readelf", "-W", "-S", str(library)], capture_output=True, text=True, check=True
    ).stdout
    for line in sections.splitlines():
        fields = line.replace("[ ", "[").split()
        if len(fields) > 5 and fields[1] == ".rodata":
            start, offset = int(fields[3], 16), int(fields[4], 16)
            data = library.read_bytes()[offset + address - start :][:size]
            return entry, data
    raise SystemExit(f"icu_subset: {library} has no .rodata section")


def subset(library: Path, work: Path) -> Path:
    """A libicudata with only the items ``keep`` names, built under ``work``."""
    entry, data = _table(library)
    work.mkdir(parents=True, exist_ok=True)
    full = work / f"{entry}l.dat"
    full.write_bytes(data)
    items = subprocess.run(
        ["icupkg", "-l", str(full)], capture_output=True, text=True, check=True
    ).stdout.split()
    dropped = work / "dropped.txt"
    dropped.write_text("".join(f"{item}\n" for item in items if not keep(item)))
    small = work / "small" / full.name
    small.parent.mkdir(exist_ok=True)
    subprocess.run(["icupkg", "-r", str(dropped), str(full), str(small)], check=True)
    subprocess.run(["genccode", "-e", entry, "-a", "gcc", "-d", str(work), str(small)], check=True)
    out = work / library.name
    soname = library.name
    subprocess.run(
        ["gcc", "-shared", "-nostdlib", f"-Wl,-soname,{soname}", "-o", str(out),
         str(work / f"{entry}l_dat.S")],
        check=True,
    )  # fmt: skip
    return out
