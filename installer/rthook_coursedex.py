"""PyInstaller runtime hook: runs in the frozen app before any of its code.

On Windows and macOS the bundle carries libVLC and its plugins in ``vlc/``: point
python-vlc at them (it reads these variables when it is first imported). On Linux the
system's libvlc5 is used, found by python-vlc itself.
"""

import os
import sys
from pathlib import Path

_vlc = Path(getattr(sys, "_MEIPASS", "")) / "vlc"
if _vlc.is_dir():
    _lib = _vlc / "libvlc.dll" if sys.platform == "win32" else _vlc / "lib" / "libvlc.dylib"
    os.environ.setdefault("PYTHON_VLC_LIB_PATH", str(_lib))
    os.environ.setdefault("PYTHON_VLC_MODULE_PATH", str(_lib.parent))
    os.environ.setdefault("VLC_PLUGIN_PATH", str(_vlc / "plugins"))
