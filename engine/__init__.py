"""Coursedex engine: headless indexing and search over course material.

Nothing leaves the machine. Every process that uses the engine imports this package before
any of the libraries below, so their phoning home is switched off here, once, by
construction: onnxruntime's Microsoft telemetry (on import it makes a device id under
``~/.cache/Microsoft/DeveloperTools`` and queues events for mobile.events.data.microsoft.com;
it reads ``ORT_DISABLE_TELEMETRY`` only then), and the Hugging Face hub library that
faster-whisper imports (its usage reports; we always give faster-whisper a model folder).
Child processes (speech recognition, which loads onnxruntime for voice activity) inherit the
environment.
"""

import os as _os

__version__ = "0.1.0"

for _name, _value in (
    ("ORT_DISABLE_TELEMETRY", "1"),
    ("HF_HUB_DISABLE_TELEMETRY", "1"),
    ("DO_NOT_TRACK", "1"),
):
    _os.environ[_name] = _value
