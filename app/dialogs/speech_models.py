"""The speech models as Settings offers them, in words a student understands: "Automatic: fast
for English, accurate for other languages (recommended)" first, then "Fast, English only"
(tiny.en), "Accurate, any language" (Whisper base) and any other model the registry knows, by
its description. The settings file keeps the registry's names ("auto" for automatic), so an
older file naming a model stays valid."""

from __future__ import annotations

import re
from collections.abc import Iterator

from engine.api import (
    AUTO_SPEECH_MODEL,
    ENGLISH_SPEECH_MODEL,
    MULTILINGUAL_SPEECH_MODEL,
    ModelRegistry,
    ModelRole,
)

WORDS = {
    AUTO_SPEECH_MODEL: "Automatic: fast for English, accurate for other languages (recommended)",
    ENGLISH_SPEECH_MODEL: "Fast, English only",
    MULTILINGUAL_SPEECH_MODEL: "Accurate, any language",
}
AUTO_MODELS = (ENGLISH_SPEECH_MODEL, MULTILINGUAL_SPEECH_MODEL)  # what automatic uses


def speech_words(name: str, description: str = "") -> str:
    """A speech model as the list names it: in words for the usual ones, by its description
    for the others (without the converter's name, which tells a student nothing), by its
    name when it has neither."""
    if name in WORDS:
        return WORDS[name]
    return re.sub(r" \(CTranslate2[^)]*\)", "", description) or name


def speech_installed(registry: ModelRegistry, current: str) -> dict[str, bool]:
    """Each speech model the registry knows (and ``current``, which it may not: a folder
    removed by hand) and whether it is installed. Automatic is when its English model is:
    without Whisper base every lecture is heard by it, as English (``missing_note``)."""
    found = {i.name: i.installed for i in registry.list() if i.role == ModelRole.SPEECH}
    installed = {AUTO_SPEECH_MODEL: found.get(ENGLISH_SPEECH_MODEL, False), **found}
    installed.setdefault(current, False)
    return installed


def speech_labels(registry: ModelRegistry, installed: dict[str, bool]) -> Iterator[tuple[str, str]]:
    """(name, label) in the list's order: automatic, its two models, then the others."""
    descriptions = {i.name: i.description for i in registry.list()}
    names = [AUTO_SPEECH_MODEL, *AUTO_MODELS]
    names += [n for n in installed if n not in names]
    for name in names:
        words = speech_words(name, descriptions.get(name, ""))
        yield name, words if installed.get(name, False) else f"{words} (not installed)"


def missing_note(name: str, installed: dict[str, bool]) -> str:
    """What the Settings say under the list when the model picked (or one that automatic
    uses) is not installed; "" when all is there."""
    if name != AUTO_SPEECH_MODEL:
        if installed.get(name, False):
            return ""
        words = speech_words(name)
        named = words if words == name else f"“{words}” ({name})"
        return (
            f"{named} is not installed: install it on the Models tab, or lectures without "
            "subtitles cannot be transcribed."
        )
    if not installed.get(ENGLISH_SPEECH_MODEL, False):
        return (
            f"“{speech_words(ENGLISH_SPEECH_MODEL)}” ({ENGLISH_SPEECH_MODEL}) is not installed: "
            "install it on the Models tab, or lectures without subtitles cannot be transcribed."
        )
    if not installed.get(MULTILINGUAL_SPEECH_MODEL, False):
        return (
            f"“{speech_words(MULTILINGUAL_SPEECH_MODEL)}” ({MULTILINGUAL_SPEECH_MODEL}) is not "
            "installed: until it is (Models tab), lectures in other languages than English are "
            "heard as English."
        )
    return ""
