"""Languages: the codes the engine stores, their names, a user's word for one, and the
language of a text.

A language is kept as its ISO 639-1 code (``"es"``), the code Whisper detects and stores;
Cantonese, which has none, is ``"yue"``. :data:`LANGUAGES` is Whisper's list: the languages
speech can be heard in. Text is identified with py3langid (langid.py's naive Bayes over byte
n-grams, BSD, numpy only, 4.5 MB, ~40 µs a text): chosen over lingua (100+ MB of models) and
fastText's identifier (its model downloads at run time), and restricted to the languages
Whisper knows, so a text and a lecture in one language get the same code. Short texts are
guessed badly by any identifier ("Merge sort" reads as Norwegian), so below
:data:`MIN_LETTERS` letters, or when unsure, :func:`text_language` says ``None``.

Imports nothing from the engine but its errors.
"""

from __future__ import annotations

import threading
import unicodedata
from collections.abc import Iterable
from typing import Any

from engine.errors import CoursedexError

ENGLISH = "en"
# Whisper's 100 languages (openai/whisper tokenizer.py), code -> English name, in its order:
# roughly by how much speech it was trained on.
_TABLE = """
en English
zh Chinese
de German
es Spanish
ru Russian
ko Korean
fr French
ja Japanese
pt Portuguese
tr Turkish
pl Polish
ca Catalan
nl Dutch
ar Arabic
sv Swedish
it Italian
id Indonesian
hi Hindi
fi Finnish
vi Vietnamese
he Hebrew
uk Ukrainian
el Greek
ms Malay
cs Czech
ro Romanian
da Danish
hu Hungarian
ta Tamil
no Norwegian
th Thai
ur Urdu
hr Croatian
bg Bulgarian
lt Lithuanian
la Latin
mi Maori
ml Malayalam
cy Welsh
sk Slovak
te Telugu
fa Persian
lv Latvian
bn Bengali
sr Serbian
az Azerbaijani
sl Slovenian
kn Kannada
et Estonian
mk Macedonian
br Breton
eu Basque
is Icelandic
hy Armenian
ne Nepali
mn Mongolian
bs Bosnian
kk Kazakh
sq Albanian
sw Swahili
gl Galician
mr Marathi
pa Punjabi
si Sinhala
km Khmer
sn Shona
yo Yoruba
so Somali
af Afrikaans
oc Occitan
ka Georgian
be Belarusian
tg Tajik
sd Sindhi
gu Gujarati
am Amharic
yi Yiddish
lo Lao
uz Uzbek
fo Faroese
ht Haitian Creole
ps Pashto
tk Turkmen
nn Nynorsk
mt Maltese
sa Sanskrit
lb Luxembourgish
my Myanmar
bo Tibetan
tl Tagalog
mg Malagasy
as Assamese
tt Tatar
haw Hawaiian
ln Lingala
ha Hausa
ba Bashkir
jw Javanese
su Sundanese
yue Cantonese
"""
LANGUAGES: dict[str, str] = {
    code: name for code, name in (line.split(" ", 1) for line in _TABLE.strip().splitlines())
}
# What people type for a language that is not its code or English name.
_ALIASES = {
    "cmn": "zh",
    "mandarin": "zh",
    "zho": "zh",
    "chi": "zh",
    "jv": "jw",
    "iw": "he",
    "nb": "no",
    "español": "es",
    "castellano": "es",
    "deutsch": "de",
    "français": "fr",
    "francais": "fr",
    "italiano": "it",
    "português": "pt",
    "portugues": "pt",
    "nederlands": "nl",
    "polski": "pl",
    "русский": "ru",
    "中文": "zh",
    "日本語": "ja",
    "한국어": "ko",
    "العربية": "ar",
    "türkçe": "tr",
}
_BY_NAME = {name.lower(): code for code, name in LANGUAGES.items()}
# py3langid's labels that mean one of Whisper's languages under another code.
_TEXT_ALIASES = {"jv": "jw", "wuu": "zh", "uzs": "uz"}
MIN_LETTERS = 24  # fewer letters than this: no guess
MIN_CONFIDENCE = 0.5  # py3langid's normalised probability of its best language
_SAMPLE_CHARS = 20_000  # a text's language is told by its start


def language_name(code: str | None) -> str:
    """``"Spanish"`` for ``"es"``; the code itself when unknown; ``"unknown"`` for None."""
    if not code:
        return "unknown"
    return LANGUAGES.get(code, code)


def parse_language(text: str) -> str:
    """The code a user meant by ``text``: a code (``es``, ``ES``, ``es-MX``, ``cmn``), an
    English name (``Spanish``) or a native one (``español``).

    Raises:
        CoursedexError: no language of Whisper's is called so (the message says how to
            name one).
    """
    word = text.strip().lower().replace("_", "-")
    code = _ALIASES.get(word) or _BY_NAME.get(word)
    if code is None and word in LANGUAGES:
        code = word
    if code is None and "-" in word:  # a region or script: es-MX, zh-Hans
        head = word.split("-", 1)[0]
        code = _ALIASES.get(head) or (head if head in LANGUAGES else None)
    if code is None:
        raise CoursedexError(
            f"unknown language {text.strip()[:40]!r}: give a code such as en, es, de, fr, zh "
            "or its English name (Spanish)"
        )
    return code


_identifier: Any = None
_identifier_lock = threading.Lock()


def _identify() -> Any:
    """py3langid's identifier, loaded on first use (~1 s: its model is xz-compressed) and
    kept: the model is read-only, so threads share it."""
    global _identifier
    with _identifier_lock:
        if _identifier is None:
            from py3langid.langid import MODEL_FILE, LanguageIdentifier

            identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
            known = set(identifier.labels)
            wanted = {code for code in LANGUAGES if code in known}
            wanted |= {label for label in _TEXT_ALIASES if label in known}
            identifier.set_languages(sorted(wanted))
            _identifier = identifier
        return _identifier


def letters(text: str) -> int:
    """How many letters ``text`` has (any script; digits, marks and symbols do not count)."""
    return sum(1 for ch in text if unicodedata.category(ch).startswith("L"))


def text_language(text: str, *, min_confidence: float = MIN_CONFIDENCE) -> str | None:
    """The language ``text`` is written in, or None when it is too short to tell or the
    identifier is unsure. Reads at most the first 20,000 characters (enough, and fast)."""
    sample = text[:_SAMPLE_CHARS]
    if letters(sample[:2_000]) < MIN_LETTERS and letters(sample) < MIN_LETTERS:
        return None
    code, confidence = _identify().classify(sample)
    if confidence < min_confidence:
        return None
    return _TEXT_ALIASES.get(code, code)


def texts_language(texts: Iterable[str]) -> str | None:
    """:func:`text_language` of a file's texts (its segments), read only as far as the
    identifier reads: a long file is told by its start."""
    sample: list[str] = []
    size = 0
    for text in texts:
        sample.append(text)
        size += len(text)
        if size >= _SAMPLE_CHARS:
            break
    return text_language("\n".join(sample))


def is_english(code: str | None) -> bool:
    return code == ENGLISH


__all__ = [
    "ENGLISH",
    "LANGUAGES",
    "MIN_LETTERS",
    "is_english",
    "language_name",
    "letters",
    "parse_language",
    "text_language",
    "texts_language",
]
