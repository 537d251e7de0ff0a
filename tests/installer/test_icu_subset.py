"""installer/icu_subset.py on PySide6's real ICU: Qt Core loaded with the cut table sorts,
maps case, knows the common encodings and time zones as it does with the whole table."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux")
    or not all(shutil.which(tool) for tool in ("icupkg", "genccode", "gcc", "readelf")),
    reason="the Linux bundle's ICU table (icu-devtools, gcc, readelf)",
)

# What Qt asks ICU for, as the app and its file dialogs use it; printed as JSON.
_PROBE = """
import json, re
from PySide6.QtCore import QCollator, QCoreApplication, QLocale, QStringDecoder, QTimeZone
app = QCoreApplication([])
words = ["zebra", "Äpfel", "apple", "Öl", "ole", "file10", "file9", "Ångström", "čaj",
         "ćevapi", "cukr", "chata", "hrad", "ii", "Łódź", "lody"]
out = {}
for name in ("en_US", "de_DE", "sv_SE", "cs_CZ", "pl_PL", "fr_FR", "tr_TR", "ru_RU"):
    collator = QCollator(QLocale(name))
    collator.setNumericMode(True)
    out["sort " + name] = sorted(words, key=collator.sortKey)
out["upper tr"] = QLocale("tr_TR").toUpper("istanbul")
out["upper de"] = QLocale("de_DE").toUpper("straße")
for name in ("windows-1252", "windows-1250", "windows-1251", "ISO-8859-2", "ISO-8859-15",
             "KOI8-R", "IBM850", "macintosh", "Shift_JIS", "EUC-JP", "ISO-2022-JP", "GBK",
             "GB18030", "Big5", "EUC-KR", "windows-874", "ISO-8859-7"):
    out["codec " + name] = QStringDecoder(name).isValid()
zone = QTimeZone(b"Europe/Berlin")
long_name = QTimeZone.NameType.LongName
out["zone"] = zone.displayName(QTimeZone.TimeType.StandardTime, long_name, QLocale("en_US"))
out["icu"] = sorted(set(re.findall(r"\\S*libicudata\\S*", open("/proc/self/maps").read())))
print(json.dumps(out))
"""


def _module() -> ModuleType:
    return load_script(ROOT / "installer" / "icu_subset.py")


def _probe(tmp_path: Path, preload: Path | None) -> dict[str, Any]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path)}
    if preload is not None:  # its soname answers Qt's NEEDED libicudata.so.73
        env["LD_PRELOAD"] = str(preload)
    run = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.splitlines()[-1])


@pytest.fixture(scope="module")
def qt_icudata() -> Path:
    import PySide6

    found = sorted((Path(PySide6.__file__).parent / "Qt" / "lib").glob("libicudata.so.*"))
    if not found:
        pytest.skip("this PySide6 carries no ICU")
    return found[0].resolve()


def test_qt_with_the_cut_table_works_as_with_the_whole_one(
    qt_icudata: Path, tmp_path: Path
) -> None:
    small = _module().subset(qt_icudata, tmp_path / "work")
    assert small.name == qt_icudata.name
    assert small.stat().st_size < 5_000_000 < 30_000_000 < qt_icudata.stat().st_size
    whole, cut = _probe(tmp_path, None), _probe(tmp_path, small)
    assert cut.pop("icu") == [str(small)]
    assert whole.pop("icu") == [str(qt_icudata)]
    assert cut == whole
    # The tailorings are there: Swedish sorts å, ä, ö after z; Czech ch after h.
    assert cut["sort sv_SE"].index("Öl") > cut["sort sv_SE"].index("zebra")
    assert cut["sort cs_CZ"].index("chata") == cut["sort cs_CZ"].index("hrad") + 1
    assert cut["sort en_US"].index("file9") < cut["sort en_US"].index("file10")
    assert cut["upper tr"] == "İSTANBUL" and cut["upper de"] == "STRASSE"
    assert all(v for k, v in cut.items() if k.startswith("codec "))
    assert cut["zone"] == "Central European Standard Time"


def test_what_goes_is_what_qt_never_asks_for() -> None:
    keep = _module().keep
    assert keep("coll/root.res") and keep("coll/ucadata.icu") and keep("coll/sv.res")
    assert keep("coll/de_AT.res") and keep("zoneinfo64.res") and keep("cnvalias.icu")
    assert keep("ibm-5348_P100-1997.cnv")  # windows-1252
    assert not keep("coll/zh.res")  # Chinese sorts by the root order
    assert not keep("brkitr/word.brk") and not keep("translit/root.res")
    assert not keep("ibm-37_P100-1995.cnv")  # EBCDIC
    assert not keep("de.res") and not keep("zone/de.res") and not keep("unames.icu")
