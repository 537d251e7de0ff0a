"""Each file's language, and the speech model that hears a lecture in it.

A file's language is, first, the one the user set for its content (``Library.set_language``,
kept by sha256 as notes are, so importing the file again keeps it); then the one the import
was told (``MediaConfig.language``, ``coursedex ingest --language``); else found: a lecture's
by Whisper base listening to the start of its speech (:meth:`Transcriber.detect_language`),
a subtitle file's by its name (``lecture.es.srt``) else its text, slides', notes' and
documents' by their text (:func:`engine.languages.text_language`). Code is left unknown:
its keywords are English whatever its comments are.

The speech model (:data:`~engine.config.AUTO_SPEECH_MODEL` by default) is tiny.en for an
English lecture, which it hears fast, and Whisper base for every other language. A file in
another language never goes through an English-only (``.en``) model: when the user chose
one, a lecture in another language is heard by base, and the import says why. When the
detection is unsure (below :data:`~engine.media.transcribe.SURE`), base hears the lecture
and tells its language itself from its first 30 s (a wrong guess then costs accuracy, never
a lecture heard as English nonsense); an unsure English lecture is heard by base too.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.config import AUTO_SPEECH_MODEL
from engine.languages import ENGLISH, language_name, texts_language
from engine.media.transcribe import SURE, DetectedLanguage
from engine.types import ParsedSource, SourceKind

ENGLISH_SPEECH_MODEL = "faster-whisper-tiny.en"
MULTILINGUAL_SPEECH_MODEL = "faster-whisper-base"
_TEXT_SEGMENTS = 400  # a file's first segments are enough to tell its language


@dataclass(frozen=True, slots=True)
class SpeechPlan:
    """How a lecture is heard: by ``model`` (a registry name), told the language ``asked``
    ("" when the model tells it itself). ``note`` says why the user's model is not used."""

    model: str
    asked: str
    note: str = ""


def english_only(model: str) -> bool:
    """Whisper's English-only models are named so (tiny.en, base.en, small.en...)."""
    return model.endswith(".en")


def needs_detection(chosen: str, language: str | None) -> bool:
    """Whether the lecture's language must be heard before its model can be chosen: not
    when it is known, nor when the user chose a multilingual model (it tells it itself)."""
    return language is None and (chosen == AUTO_SPEECH_MODEL or english_only(chosen))


def plan_speech(chosen: str, language: str | None, detected: DetectedLanguage | None) -> SpeechPlan:
    """The model and language for a lecture: ``chosen`` is the user's setting, ``language``
    the one set or given (None: not known), ``detected`` what the probe heard (None: no
    probe, base is not installed)."""
    if not needs_detection(chosen, language):
        if language is None:  # a multilingual model of the user's choice
            return SpeechPlan(chosen, "")
        return _for_language(chosen, language)
    if detected is None:
        model = ENGLISH_SPEECH_MODEL if chosen == AUTO_SPEECH_MODEL else chosen
        note = f"heard as English: {MULTILINGUAL_SPEECH_MODEL} is not installed to tell"
        return SpeechPlan(model, ENGLISH, note)
    if detected.probability < SURE or not detected.language:
        note = "" if chosen == AUTO_SPEECH_MODEL else _not_english_only(chosen, None)
        return SpeechPlan(MULTILINGUAL_SPEECH_MODEL, "", note)
    return _for_language(chosen, detected.language)


def _for_language(chosen: str, language: str) -> SpeechPlan:
    if chosen == AUTO_SPEECH_MODEL:
        english = language == ENGLISH
        return SpeechPlan(ENGLISH_SPEECH_MODEL if english else MULTILINGUAL_SPEECH_MODEL, language)
    if english_only(chosen) and language != ENGLISH:
        return SpeechPlan(MULTILINGUAL_SPEECH_MODEL, language, _not_english_only(chosen, language))
    return SpeechPlan(chosen, language)


def _not_english_only(chosen: str, language: str | None) -> str:
    heard = f"in {language_name(language)}" if language else "of a language not clearly heard"
    return f"heard by {MULTILINGUAL_SPEECH_MODEL}: {chosen} hears English only, this is {heard}"


def written_language(parsed: ParsedSource) -> str | None:
    """The language of a parsed file's text: the one its name gives (subtitles), else the
    one its text is written in; None for code, or text too short or too mixed to tell."""
    if parsed.language is not None:
        return parsed.language
    if parsed.kind is SourceKind.CODE:
        return None
    return texts_language(s.text for s in parsed.segments[:_TEXT_SEGMENTS] if s.text.strip())
