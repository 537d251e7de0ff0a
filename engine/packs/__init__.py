"""Course packs: a course as the library knows it, everything but its files, in one zip that
another library imports in seconds instead of transcribing the lectures again.

- format.py  what a pack holds (the parts, their version), its limits, the values read
- parts.py   the JSON parts written from and read back into those values, checked field by field
- writer.py  ``export_pack``: a course out of a library
- reader.py  ``read_pack``: a pack read and checked whole before anything is written
- places.py  its notes and slide links checked at their places, as ``notes add`` checks one
- media.py   where a pack's files are here, found by content (sha256)
- ownership.py  what a pack may write where the library holds files already: never over them
- loader.py  ``import_pack``: a checked pack into a library, in one transaction; what it changed
- contents.py  what each of its files writes: the pack's vectors, or its text embedded again
- storing.py   the writing itself, through the library's ``pack_port``
"""

from engine.packs.format import SUFFIX, VERSION, Pack, PackError, PackLimits, PackProgress
from engine.packs.loader import ImportSummary, PackFile, import_pack
from engine.packs.reader import read_pack
from engine.packs.writer import ExportSummary, export_pack

__all__ = [
    "SUFFIX",
    "VERSION",
    "ExportSummary",
    "ImportSummary",
    "Pack",
    "PackError",
    "PackFile",
    "PackLimits",
    "PackProgress",
    "export_pack",
    "import_pack",
    "read_pack",
]
