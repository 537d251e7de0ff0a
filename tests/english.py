"""Imports told that their files are in English, for tests whose subject is not language.

By default (``MediaConfig.language`` None, speech model "auto") an import finds each
lecture's language first: Whisper base loads in the recognition child and listens to the
lecture's start (~1.5 s of CPU a lecture) before tiny.en hears it. A test about progress,
kills, concurrency or the window has nothing to learn from that, and its lectures are English
(espeak-ng's en-us voice). Told the language, the import skips detection and goes straight
to tiny.en, as ``coursedex ingest --language en`` does; text files then take that language
instead of the one read off their text (English either way here; code, left unknown by
default, is indexed the same: engine.analysis.uses_porter).

The detection path stays covered by the tests about it:
tests/engine/importing/test_lecture_languages.py, test_whisper_base.py,
test_fulltext_languages.py, the app's test_language_window.py, the demo course's import
(tests/conftest.py::demo_import), the app's self-test and the hostile corpus.

    Library.open(folder, english(), lambda: embedder)
    main(["--library", str(lib), "ingest", *ENGLISH_INGEST, str(video)])
"""

from __future__ import annotations

from dataclasses import replace

from engine.config import EngineConfig
from engine.languages import ENGLISH

ENGLISH_INGEST = ("--language", ENGLISH)  # `coursedex ingest`'s words for the same


def english(config: EngineConfig | None = None) -> EngineConfig:
    """``config`` (default: ``EngineConfig()``) with its imports told the files are English."""
    config = config if config is not None else EngineConfig()
    return replace(config, media=replace(config.media, language=ENGLISH))
