"""Full-text search in each text's language (issue 33): stems, folding and word pieces in
engine/analysis.py, the analysed index (schema step 10), and what search reads with it."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from engine import analysis, words
from engine.config import SearchConfig
from engine.library import Library
from engine.search.lexical import best_passage
from engine.search.seek import seek_ms
from engine.store import SegmentRow, Store
from engine.store.schema import MIGRATIONS
from engine.types import SegmentDraft, SegmentKind, SourceKind, SourceStatus, Timing

FULLTEXT = replace(SearchConfig(), dense=False, passage_rank=False, gate=0.0)


@pytest.fixture
def library(detecting_library: Library) -> Library:
    """The import finds each file's language itself, as by default (tests/conftest.py)."""
    return detecting_library


def test_spanish_words_are_stemmed_as_spanish_and_keep_their_enye() -> None:
    assert analysis.term("células", "es") == analysis.term("célula", "es") == "celul"
    assert analysis.term("madres", "es") == analysis.term("madre", "es")
    assert analysis.term("año", "es") != analysis.term("ano", "es")
    assert analysis.term("AÑO", "es") == analysis.term("año", "es")
    assert analysis.term("fotosíntesis", "es") == analysis.term("fotosintesis", "es")


def test_german_sharp_s_and_umlauts_fold_scandinavian_letters_stay() -> None:
    assert analysis.term("Straße", "de") == analysis.term("Strasse", "de")
    assert analysis.term("Häuser", "de") == analysis.term("Hauser", "de")
    assert analysis.term("Wärmekraftmaschine", "de") == analysis.term("wärmekraftmaschine", "de")
    assert analysis.term("sø", "da") != analysis.term("so", "da")  # a lake is not "so"
    assert analysis.term("år", "sv") != analysis.term("ar", "sv")
    assert analysis.term("мой", "ru") != analysis.term("мои", "uk")  # й is not и
    # Hindi vowel signs are part of the word, not accents to drop.
    assert analysis.terms("नमस्ते दुनिया", "hi") == ["नमस्त", "दुनिय"]


def test_text_without_spaces_becomes_character_pairs_with_their_places() -> None:
    assert analysis.terms("光合作用", "zh") == ["光合", "合作", "作用"]
    assert analysis.terms("東京に", "ja") == ["東京", "京に"]
    assert analysis.terms("猫", "zh") == ["猫"]
    assert list(analysis.spans("关于DNA复制", "zh")) == [
        (0, 2, "关于"),
        (2, 5, "dna"),
        (5, 7, "复制"),
    ]


def _ingest(library: Library, folder: Path, files: dict[str, str]) -> None:
    folder.mkdir(parents=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    report = library.ingest([folder])
    assert not report.errors


SPANISH = {
    "celulas.md": "# Biología\n\nLas células madre pueden convertirse en cualquier tipo de "
    "célula del cuerpo humano, y por eso la medicina regenerativa las estudia con interés.\n",
    "anos.md": "# Historia\n\nDurante muchos años la ciudad creció alrededor del puerto, y "
    "cada año llegaban barcos cargados de especias desde las colonias lejanas.\n",
    "ano.md": "# Anatomía\n\nEl ano es la abertura final del tubo digestivo; los médicos "
    "examinan esta zona cuando el paciente describe dolor o sangrado persistente.\n",
}


def test_a_spanish_library_is_searched_in_spanish(library: Library, tmp_path: Path) -> None:
    _ingest(library, tmp_path / "Curso", SPANISH)
    sources = {Path(s.path).name: s.language for s in library.store.catalog.sources()}
    assert set(sources.values()) == {"es"}
    first = library.search("célula madre", config=FULLTEXT).results[0]
    assert Path(first.source).name == "celulas.md"
    marked = {first.snippet[a:b] for a, b in first.highlights}
    assert {"células", "madre", "célula"} <= marked
    años = [Path(r.source).name for r in library.search("años", config=FULLTEXT).results]
    assert años == ["anos.md"]  # "año" is not "ano"
    assert [Path(r.source).name for r in library.search("ano", config=FULLTEXT).results] == [
        "ano.md"
    ]


GERMAN = {
    "zelle.md": "# Biologie\n\nDie Zelle ist die kleinste Einheit des Lebens. In der Zelle "
    "liegt der Kern, und in dem Kern liegt die Erbinformation der Pflanzen und der Tiere.\n",
    "fluss.md": "# Geographie\n\nDer Rhein fließt von den Alpen bis zur Nordsee und ist einer "
    "der längsten Flüsse in der Mitte von Europa, an dem viele alte Städte liegen.\n",
}


@pytest.mark.parametrize(
    ("files", "question", "source", "content", "function"),
    [
        (
            SPANISH,
            "¿Qué es la célula madre de la medicina regenerativa?",
            "celulas.md",
            {"células", "célula", "madre", "medicina", "regenerativa"},
            {"la", "de", "las", "del", "en", "y"},
        ),
        (GERMAN, "Was ist der Kern in der Zelle?", "zelle.md", {"kern", "zelle"}, {"der", "in"}),
    ],
    ids=["es", "de"],
)
def test_a_question_marks_its_content_words_not_its_function_words(
    library: Library,
    tmp_path: Path,
    files: dict[str, str],
    question: str,
    source: str,
    content: set[str],
    function: set[str],
) -> None:
    _ingest(library, tmp_path / "Curso", files)
    first = library.search(question, config=FULLTEXT).results[0]
    assert Path(first.source).name == source
    marked = {first.snippet[a:b].lower() for a, b in first.highlights}
    assert content <= marked
    assert not marked & function  # marked before engine/function_words.py: "la", "de", "der"


CHINESE = (
    "光合作用是植物利用阳光把二氧化碳和水转化为葡萄糖的过程。这个过程发生在叶绿体中，"
    "并且释放出氧气。科学家认为它是地球上最重要的化学反应之一。"
)
JAPANESE = (
    "東京は日本の首都であり、世界で最も人口の多い都市圏の一つです。江戸時代には江戸と"
    "呼ばれ、徳川幕府の中心地として栄えました。"
)
THAI = (
    "กรุงเทพมหานครเป็นเมืองหลวงของประเทศไทย และเป็นศูนย์กลางทางเศรษฐกิจของประเทศ "
    "แม่น้ำเจ้าพระยาไหลผ่านใจกลางเมือง"
)
OTHER = "细胞分裂是生物体生长和繁殖的基础。有丝分裂产生两个相同的子细胞，而减数分裂产生配子。"


def test_chinese_japanese_and_thai_are_found_by_a_few_characters(
    library: Library, tmp_path: Path
) -> None:
    _ingest(
        library,
        tmp_path / "Asia",
        {"zh.md": CHINESE, "ja.md": JAPANESE, "th.md": THAI, "cells.md": OTHER},
    )
    languages = {Path(s.path).name: s.language for s in library.store.catalog.sources()}
    assert languages == {"zh.md": "zh", "ja.md": "ja", "th.md": "th", "cells.md": "zh"}
    for query, name in (("光合作用", "zh.md"), ("叶绿体", "zh.md"), ("江戸時代", "ja.md")):
        hits = library.search(query, config=FULLTEXT).results
        assert [Path(h.source).name for h in hits][:1] == [name], query
        assert hits[0].highlights, query
    thai = library.search("เมืองหลวง", config=FULLTEXT).results
    assert [Path(h.source).name for h in thai] == ["th.md"]
    marked = {thai[0].snippet[a:b] for a, b in thai[0].highlights}
    assert "เมืองหลวง" in marked


ENGLISH = {
    "sort.md": "# Sorting\n\nMerge sort splits the list in halves, sorts each half and merges "
    "them; it is stable and runs in n log n time.\n",
    "hash.md": "# Hashing\n\nA hash table maps keys to buckets; collisions are resolved by "
    "chaining or by open addressing with probing.\n",
    "graphs.md": "# Graphs\n\nBreadth-first search visits a graph level by level using a "
    "queue; depth-first search uses a stack and sorts vertices topologically.\n",
}
QUERIES = ("merge sort stable", "hash collisions", "sorting a graph", "queue", "sorted halves")


def _ranked(library: Library) -> list[list[tuple[str, float]]]:
    out = []
    for query in QUERIES:
        hits = library.search(query, config=FULLTEXT).results
        out.append([(Path(h.source).name, round(h.score, 9)) for h in hits])
    return out


def test_english_ranks_as_before_beside_spanish(library: Library, tmp_path: Path) -> None:
    _ingest(library, tmp_path / "Algorithms", ENGLISH)
    alone = _ranked(library)
    assert [r[0][0] for r in alone[:3]] == ["sort.md", "hash.md", "graphs.md"]
    assert {s.language for s in library.store.catalog.sources()} == {"en"}
    # English rows stay in FTS5's Porter index: nothing analysed in Python.
    assert library.store.conn.execute(
        "SELECT count(*) FROM segments WHERE text_terms IS NOT NULL"
    ).fetchone() == (0,)
    _ingest(library, tmp_path / "Curso", SPANISH)
    beside = [[hit for hit in ranked if hit[0] in ENGLISH] for ranked in _ranked(library)]
    assert beside == alone


def _old_library(path: Path) -> None:
    """A library as schema step 8 wrote it (before text was analysed per language)."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.executescript(
        "BEGIN;\n" + ";\n".join(MIGRATIONS[:8]) + ";\nPRAGMA user_version = 8;\nCOMMIT;"
    )
    conn.execute("INSERT INTO courses(id, name, root, created_at) VALUES (1, 'Old', NULL, 'x')")
    conn.execute(
        "INSERT INTO sources(id, course_id, path, kind, title, status, added_at) "
        "VALUES (1, 1, '/old.md', 'notes', 'old.md', 'indexed', 'x')"
    )
    for i, (name, text) in enumerate(ENGLISH.items()):
        conn.execute(
            "INSERT INTO segments(id, source_id, ord, kind, heading, text) "
            "VALUES (?, 1, ?, 'note', ?, ?)",
            (i + 1, i, name, text),
        )
    conn.close()


def test_an_old_library_is_migrated_and_searches_as_before(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    _old_library(path)
    before = sqlite3.connect(path)
    query = '"sort" OR "stabl" OR "queue"'
    expected = before.execute(
        "SELECT rowid, rank FROM segments_fts WHERE segments_fts MATCH ? ORDER BY rank", (query,)
    ).fetchall()
    before.close()
    assert len(expected) == 2
    store = Store(path)
    try:
        found = store.segments.fulltext(query, 10, terms_match='"sort"')
        assert [(sid, -score) for sid, score in found] == [tuple(e) for e in expected]
        # The migrated library moves a row that becomes Spanish to the analysed index and
        # takes it out of Porter's.
        with store.transaction():
            store.conn.execute(
                "UPDATE segments SET text = ?, text_terms = ?, heading_terms = '', "
                "extra_terms = '' WHERE id = 1",
                ("Las células madre", analysis.analysed("Las células madre", "es")),
            )
        assert store.segments.fulltext('"sort"', 10) == [
            (sid, s) for sid, s in store.segments.fulltext('"sort"', 10) if sid != 1
        ]
        assert [sid for sid, _ in store.segments.fulltext(None, 10, terms_match='"celul"')] == [1]
        with store.transaction():
            store.conn.execute("DELETE FROM segments WHERE id = 1")
        assert store.segments.fulltext(None, 10, terms_match='"celul"') == []
        store.conn.execute("INSERT INTO segments_fts(segments_fts) VALUES ('integrity-check')")
        store.conn.execute("INSERT INTO segments_terms(segments_terms) VALUES ('integrity-check')")
    finally:
        store.close()


def test_a_spanish_file_indexed_by_porter_before_step_9_is_analysed_at_open(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.db"
    _old_library(path)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("UPDATE sources SET language = 'es'")  # as the language branch records it
    conn.execute("UPDATE segments SET text = ? WHERE id = 1", (SPANISH["celulas.md"],))
    conn.close()
    store = Store(path)
    try:
        moved = store.conn.execute("SELECT count(*) FROM segments WHERE text_terms IS NOT NULL")
        assert moved.fetchone() == (3,)
        assert store.segments.fulltext('"celul"', 10) == []  # out of Porter's index
        found = store.segments.fulltext(None, 10, terms_match='"celul" OR "madr"')
        assert [sid for sid, _ in found] == [1]
        assert store.analyse_pending() == 0  # done once
        store.conn.execute("INSERT INTO segments_fts(segments_fts) VALUES ('integrity-check')")
        store.conn.execute("INSERT INTO segments_terms(segments_terms) VALUES ('integrity-check')")
    finally:
        store.close()


def test_a_spanish_question_seeks_to_the_spanish_sentence() -> None:
    cues = (
        Timing(0, 4000, "Hoy hablamos del sistema digestivo."),
        Timing(4000, 9000, "Las células madre regeneran los tejidos dañados."),
        Timing(9000, 13000, "Después veremos la respiración."),
    )
    heard = tuple(
        Timing(cue.start_ms + 500 * i, cue.start_ms + 500 * i + 400, w)
        for cue in cues
        for i, w in enumerate(cue.text.split())
    )
    row = SegmentRow(
        id=1,
        source_id=1,
        kind=SegmentKind.TRANSCRIPT,
        start_ms=0,
        end_ms=13000,
        page=None,
        path_in_archive=None,
        line_start=None,
        line_end=None,
        heading="",
        text=" ".join(c.text for c in cues),
        timings=cues,
        source_path="/clase.mp4",
        source_title="clase",
        course="Biología",
        source_kind=SourceKind.VIDEO,
        words=heard,
        language="es",
    )
    weights = {t: 1.0 for t in analysis.query_terms("¿qué regeneran las células madre?", "es")}
    passage = best_passage(row, weights)
    assert passage is not None and passage.sentence == 1
    assert seek_ms(row, passage, weights, refine=True) == 4000
    # "regeneración" is "regeneran" in Spanish; Porter reads them as two words.
    spanish = {t: 1.0 for t in analysis.query_terms("regeneración", "es")}
    assert best_passage(row, spanish) == passage._replace(score=1.0)
    porter = {words.stem(t): 1.0 for t in words.query_terms("regeneración")}
    assert best_passage(replace(row, language=None), porter) is None


def test_a_term_with_marks_inside_is_one_term_in_the_index(tmp_path: Path) -> None:
    """Hindi's vowel signs and Thai's vowels are combining marks: the index must not cut a
    term at them (FTS5's unicode61 does by default), or a question's terms are never found."""
    store = Store(tmp_path / "lib.db")
    try:
        course = store.catalog.ensure_course("Curso")
        texts = {"hi": "नमस्ते दुनिया", "th": "กรุงเทพมหานคร"}
        for language, text in texts.items():
            with store.transaction():
                source = store.catalog.upsert_source(
                    course_id=course,
                    path=f"/{language}.md",
                    kind=SourceKind.NOTES,
                    title=language,
                    status=SourceStatus.INDEXING,
                )
                store.replace_source_content(
                    source,
                    title=language,
                    sha256=language,
                    size=1,
                    mtime_ns=1,
                    duration_ms=None,
                    embedder_id=None,
                    segments=[SegmentDraft(kind=SegmentKind.NOTE, text=text)],
                    vectors=None,
                    space="text",
                    language=language,
                )
        for language, text in texts.items():
            found = analysis.terms(text, language)
            assert store.segments.document_frequency(found, analysed=True) == dict.fromkeys(
                found, 1
            )
    finally:
        store.close()


def test_drafts_stored_in_spanish_are_analysed(tmp_path: Path) -> None:
    store = Store(tmp_path / "lib.db")
    try:
        course = store.catalog.ensure_course("Curso")
        with store.transaction():
            source = store.catalog.upsert_source(
                course_id=course,
                path="/a.md",
                kind=SourceKind.NOTES,
                title="a.md",
                status=SourceStatus.INDEXING,
            )
            store.replace_source_content(
                source,
                title="a.md",
                sha256="x",
                size=1,
                mtime_ns=1,
                duration_ms=None,
                embedder_id=None,
                segments=[SegmentDraft(kind=SegmentKind.NOTE, text="Las células", heading="Año")],
                vectors=None,
                space="text",
                language="es",
            )
        row = store.conn.execute("SELECT text_terms, heading_terms FROM segments").fetchone()
        assert tuple(row) == ("las celul", "año")
    finally:
        store.close()


def test_any_text_is_a_query_in_a_library_of_many_languages(
    library: Library, tmp_path: Path
) -> None:
    from tools.hostile.queries import QUERIES

    _ingest(library, tmp_path / "Mixed", {**SPANISH, "zh.md": CHINESE, "th.md": THAI})
    assert set(library.store.segments.analysed_languages()) == {"es", "th", "zh"}
    odd = ("\u0301", "ñ*", '"año', "光合 OR", "NEAR(célula)", "é" * 5000, "๏" + "\u0e31" * 9)
    for query in (*QUERIES, *odd):
        for typing in (False, True):
            outcome = library.search(query, limit=5, typing=typing)
            assert len(outcome.results) <= 5, query
