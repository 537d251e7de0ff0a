"""How the window names a file's language: a short tag on a library row ("ES"), the language's
English name in tooltips, result rows and what a screen reader says, the list the Language…
dialog offers, and how long hearing a lecture again takes.

The window's own words are English, so English is its language: a row or a hit in English says
nothing of it (every row of an English library would say "English"), every other language is
named. A tooltip and a screen reader's description name English too: a lecture taken for
English by mistake is found by reading it.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.api import LANGUAGES, SourceKind, language_name

INTERFACE_LANGUAGE = "en"  # the language of the window's words (it has no translations yet)
HEARD = (SourceKind.VIDEO, SourceKind.AUDIO)  # transcribed again when their language changes
# Share of a lecture's length an import of it takes, by the model that hears it (2 cores,
# issue 33: tiny.en about 0.15 x real time with scenes and embeddings; Whisper base about
# 2.6 x tiny.en's transcription time). An estimate said "about", never a promise.
_ENGLISH_SHARE = 0.15
_OTHER_SHARE = 0.4


def foreign(code: str | None) -> bool:
    """Whether a file in ``code`` is not in the window's language (None: not known)."""
    return code is not None and code != INTERFACE_LANGUAGE


def language_tag(code: str | None) -> str:
    """The short tag a library row shows: "ES" for Spanish; "" in the window's language or
    when not known."""
    return "" if code is None or not foreign(code) else code.upper()


def shown_language(code: str | None) -> str:
    """A language's English name where a result says it: "" in the window's language."""
    return "" if code is None or not foreign(code) else language_name(code)


def named_language(code: str | None) -> str:
    """A language's English name for a tooltip or a description, English included; ""
    when not known."""
    return language_name(code) if code is not None else ""


def language_choices() -> list[tuple[str, str]]:
    """Every language speech can be heard in, as (name, code), by name."""
    return sorted(((name, code) for code, name in LANGUAGES.items()), key=lambda c: c[0])


def hearing_minutes(durations_ms: Iterable[int | None], language: str | None) -> int:
    """About how many minutes hearing lectures of these lengths again takes in ``language``
    (None: detected, so heard as another language would be, the slower case)."""
    share = _ENGLISH_SHARE if language == INTERFACE_LANGUAGE else _OTHER_SHARE
    total_ms = sum(d or 0 for d in durations_ms)
    return round(total_ms * share / 60_000)


def about_minutes(minutes: int) -> str:
    return "under a minute" if minutes < 1 else f"about {minutes} min"
