"""The library database's migration scripts: the schema's history, one script per version.

The scripts must never change once released: existing libraries were created by them, and
PRAGMA user_version records how many have run. A new version is a new script at the end.
schema.py applies them.
"""

from __future__ import annotations

# Each entry moves the schema one version up; PRAGMA user_version records where a file is.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE courses (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE COLLATE NOCASE,
        root TEXT,
        created_at TEXT NOT NULL
    );
    CREATE TABLE sources (
        id INTEGER PRIMARY KEY,
        course_id INTEGER NOT NULL REFERENCES courses(id) ON DELETE CASCADE,
        path TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL,
        title TEXT NOT NULL,
        sha256 TEXT,
        size INTEGER,
        mtime_ns INTEGER,
        duration_ms INTEGER,
        status TEXT NOT NULL,
        error TEXT,
        embedder_id TEXT,
        added_at TEXT NOT NULL,
        indexed_at TEXT
    );
    CREATE INDEX sources_sha256 ON sources(sha256);
    CREATE INDEX sources_course ON sources(course_id);
    CREATE TABLE segments (
        id INTEGER PRIMARY KEY,
        source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
        ord INTEGER NOT NULL,
        kind TEXT NOT NULL,
        start_ms INTEGER,
        end_ms INTEGER,
        page INTEGER,
        path_in_archive TEXT,
        line_start INTEGER,
        line_end INTEGER,
        heading TEXT NOT NULL DEFAULT '',
        text TEXT NOT NULL,
        extra TEXT NOT NULL DEFAULT '',
        timings TEXT,
        needs_ocr INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX segments_source ON segments(source_id, ord);
    CREATE TABLE embeddings (
        segment_id INTEGER PRIMARY KEY REFERENCES segments(id) ON DELETE CASCADE,
        space TEXT NOT NULL,
        vector BLOB NOT NULL
    );
    CREATE VIRTUAL TABLE segments_fts USING fts5(
        text, heading, extra,
        content='segments', content_rowid='id',
        tokenize='porter unicode61 remove_diacritics 2'
    );
    INSERT INTO segments_fts(segments_fts, rank) VALUES ('rank', 'bm25(1.0, 0.5, 0.6)');
    CREATE VIRTUAL TABLE segments_vocab USING fts5vocab(segments_fts, 'row');
    CREATE TRIGGER segments_ai AFTER INSERT ON segments BEGIN
        INSERT INTO segments_fts(rowid, text, heading, extra)
        VALUES (new.id, new.text, new.heading, new.extra);
    END;
    CREATE TRIGGER segments_ad AFTER DELETE ON segments BEGIN
        INSERT INTO segments_fts(segments_fts, rowid, text, heading, extra)
        VALUES ('delete', old.id, old.text, old.heading, old.extra);
    END;
    CREATE TRIGGER segments_au AFTER UPDATE ON segments BEGIN
        INSERT INTO segments_fts(segments_fts, rowid, text, heading, extra)
        VALUES ('delete', old.id, old.text, old.heading, old.extra);
        INSERT INTO segments_fts(rowid, text, heading, extra)
        VALUES (new.id, new.text, new.heading, new.extra);
    END;
    """,
    # 2: video and audio. Word times of recognised speech; scenes with their thumbnails;
    # slide pages linked to the video moments that show them; the finished part of a
    # transcription (kept per content and model, so a killed import resumes there).
    """
    ALTER TABLE segments ADD COLUMN words TEXT;
    CREATE TABLE scenes (
        source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
        ord INTEGER NOT NULL,
        start_ms INTEGER NOT NULL,
        end_ms INTEGER NOT NULL,
        keyframe_ms INTEGER NOT NULL,
        thumbnail TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (source_id, ord)
    );
    CREATE TABLE slide_links (
        id INTEGER PRIMARY KEY,
        video_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
        start_ms INTEGER NOT NULL,
        end_ms INTEGER NOT NULL,
        slides_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
        page INTEGER NOT NULL,
        score REAL NOT NULL
    );
    CREATE INDEX slide_links_video ON slide_links(video_id, start_ms);
    CREATE INDEX slide_links_slides ON slide_links(slides_id, page);
    CREATE TABLE transcript_parts (
        sha256 TEXT NOT NULL,
        model TEXT NOT NULL,
        ord INTEGER NOT NULL,
        start_ms INTEGER NOT NULL,
        end_ms INTEGER NOT NULL,
        text TEXT NOT NULL,
        words TEXT,
        PRIMARY KEY (sha256, model, ord)
    );
    CREATE TABLE transcripts (
        sha256 TEXT NOT NULL,
        model TEXT NOT NULL,
        language TEXT NOT NULL,
        duration_ms INTEGER NOT NULL,
        PRIMARY KEY (sha256, model)
    );
    """,
    # 3: multi-granularity. A timed segment's cues (sentences) embedded one by one, as a
    # float16 matrix in cue order, so search can score a window by its closest sentence.
    """
    CREATE TABLE sentence_vectors (
        segment_id INTEGER PRIMARY KEY REFERENCES segments(id) ON DELETE CASCADE,
        vectors BLOB NOT NULL
    );
    """,
    # 4: two imports of one video at once (before the library's write lock) each appended
    # its on-screen text. A scene's text is one row: keep the first of each. Their vectors
    # go with them (cascade); the vector index drops theirs when it is next reconciled.
    """
    DELETE FROM segments WHERE kind = 'screen' AND id NOT IN (
        SELECT min(id) FROM segments WHERE kind = 'screen'
        GROUP BY source_id, start_ms, end_ms, text
    );
    """,
    # 5: the vector index must never keep a vector for a row that is gone, even when a new
    # row took its id (SQLite reuses the highest free id): after a kill before the index was
    # saved, or an index restored from an older copy. Each stored vector's last write gets
    # a number that only grows (AUTOINCREMENT); the index's sidecar records the highest it
    # holds, and what was written since is read again at open. library_id tells this
    # library's index from another's. Written to run again on a database whose version
    # was set back.
    """
    CREATE TABLE IF NOT EXISTS vector_writes (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        segment_id INTEGER NOT NULL UNIQUE
    );
    INSERT OR IGNORE INTO vector_writes(segment_id)
        SELECT segment_id FROM embeddings ORDER BY segment_id;
    CREATE TRIGGER IF NOT EXISTS embeddings_written_ai AFTER INSERT ON embeddings BEGIN
        INSERT OR REPLACE INTO vector_writes(segment_id) VALUES (new.segment_id);
    END;
    CREATE TRIGGER IF NOT EXISTS embeddings_written_au AFTER UPDATE OF vector ON embeddings BEGIN
        INSERT OR REPLACE INTO vector_writes(segment_id) VALUES (new.segment_id);
    END;
    CREATE TRIGGER IF NOT EXISTS embeddings_written_ad AFTER DELETE ON embeddings BEGIN
        DELETE FROM vector_writes WHERE segment_id = old.segment_id;
    END;
    INSERT INTO meta(key, value) VALUES ('library_id', lower(hex(randomblob(16))))
        ON CONFLICT(key) DO NOTHING;
    """,
    # 6: which speech model heard a transcribed file (NULL: its text came from subtitles or
    # a parser), so a user can tell which files a better model would improve. A column
    # added at the end: a read-only library a step behind still reads (as NULL).
    """
    ALTER TABLE sources ADD COLUMN speech_model TEXT;
    """,
    # 7: a user's notes at places in files (engine/notes). Anchored by the file's content
    # (sha256), not its row: removing or importing the file again never deletes a note,
    # and it shows again under the file of that content. AUTOINCREMENT: a removed note's
    # id is never given to another (`coursedex notes remove 3` run twice removes one).
    # Each note is also a segment of kind 'bookmark' under its file while the file is in
    # the library (ord = -id), so search finds it like any text; last_* say where it was.
    """
    CREATE TABLE IF NOT EXISTS notes (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        course TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        path_in_archive TEXT,
        at_ms INTEGER,
        page INTEGER,
        line INTEGER,
        text TEXT NOT NULL,
        created REAL NOT NULL,
        last_path TEXT NOT NULL DEFAULT '',
        last_title TEXT NOT NULL DEFAULT ''
    );
    CREATE INDEX IF NOT EXISTS notes_sha256 ON notes(sha256);
    """,
    # 8: the language a file's text is in (an engine.languages code; NULL: not known, as for
    # every file indexed before this step): heard in a lecture, read off a text, or set by the
    # user. At the end, as speech_model: a read-only library a step behind reads it as NULL.
    """
    ALTER TABLE sources ADD COLUMN language TEXT;
    """,
    # 9: a kept transcription is heard in one language: keyed by the language it was asked
    # for too ('' when the model chose), so one heard as Spanish is never resumed as German
    # after the user corrects the language, and both can be kept while they switch. Kept
    # parts of a .en model were English; others take their finished transcript's language
    # ('' when unfinished: transcribed again). file_languages: the language a user set for a
    # file's content (by sha256, as notes), which later imports keep.
    """
    CREATE TABLE IF NOT EXISTS transcript_parts_9 (
        sha256 TEXT NOT NULL,
        model TEXT NOT NULL,
        asked TEXT NOT NULL,
        ord INTEGER NOT NULL,
        start_ms INTEGER NOT NULL,
        end_ms INTEGER NOT NULL,
        text TEXT NOT NULL,
        words TEXT,
        PRIMARY KEY (sha256, model, asked, ord)
    );
    INSERT OR IGNORE INTO transcript_parts_9
        SELECT p.sha256, p.model,
            CASE WHEN p.model LIKE '%.en' THEN 'en' ELSE coalesce((SELECT t.language
                FROM transcripts t WHERE t.sha256 = p.sha256 AND t.model = p.model), '') END,
            p.ord, p.start_ms, p.end_ms, p.text, p.words
        FROM transcript_parts p;
    DROP TABLE transcript_parts;
    ALTER TABLE transcript_parts_9 RENAME TO transcript_parts;
    CREATE TABLE IF NOT EXISTS transcripts_9 (
        sha256 TEXT NOT NULL,
        model TEXT NOT NULL,
        asked TEXT NOT NULL,
        language TEXT NOT NULL,
        duration_ms INTEGER NOT NULL,
        PRIMARY KEY (sha256, model, asked)
    );
    INSERT OR IGNORE INTO transcripts_9
        SELECT sha256, model, CASE WHEN model LIKE '%.en' THEN 'en' ELSE language END,
            language, duration_ms
        FROM transcripts;
    DROP TABLE transcripts;
    ALTER TABLE transcripts_9 RENAME TO transcripts;
    CREATE TABLE IF NOT EXISTS file_languages (
        sha256 TEXT PRIMARY KEY,
        language TEXT NOT NULL
    );
    """,
    # 10: full-text search in each text's language. English, and text of no known language,
    # stays in segments_fts (FTS5's Porter, as before). Text in another language is analysed
    # in Python (engine/analysis.py: its stemmer, its folding, n-grams for scripts without
    # spaces) and its terms, space-separated, go to segments_terms, whose plain tokenizer
    # only splits them (at spaces: marks are inside a term, as Hindi's vowel signs and
    # Thai's vowels are inside a word; unicode61 would cut there). A row's *_terms are NULL
    # when FTS5's Porter reads it, so each row is in exactly one of the two indexes, and the
    # triggers follow it when it moves.
    """
    ALTER TABLE segments ADD COLUMN text_terms TEXT;
    ALTER TABLE segments ADD COLUMN heading_terms TEXT;
    ALTER TABLE segments ADD COLUMN extra_terms TEXT;
    CREATE VIRTUAL TABLE IF NOT EXISTS segments_terms USING fts5(
        text_terms, heading_terms, extra_terms,
        content='segments', content_rowid='id',
        tokenize="unicode61 remove_diacritics 0 categories 'L* N* Co M*'"
    );
    INSERT INTO segments_terms(segments_terms, rank) VALUES ('rank', 'bm25(1.0, 0.5, 0.6)');
    CREATE VIRTUAL TABLE IF NOT EXISTS segments_terms_vocab USING fts5vocab(segments_terms, 'row');
    DROP TRIGGER IF EXISTS segments_ai;
    DROP TRIGGER IF EXISTS segments_ad;
    DROP TRIGGER IF EXISTS segments_au;
    DROP TRIGGER IF EXISTS segments_terms_ai;
    DROP TRIGGER IF EXISTS segments_terms_ad;
    DROP TRIGGER IF EXISTS segments_au_to_terms;
    DROP TRIGGER IF EXISTS segments_au_terms;
    DROP TRIGGER IF EXISTS segments_au_to_porter;
    CREATE TRIGGER segments_ai AFTER INSERT ON segments WHEN new.text_terms IS NULL BEGIN
        INSERT INTO segments_fts(rowid, text, heading, extra)
        VALUES (new.id, new.text, new.heading, new.extra);
    END;
    CREATE TRIGGER segments_terms_ai AFTER INSERT ON segments WHEN new.text_terms IS NOT NULL
    BEGIN
        INSERT INTO segments_terms(rowid, text_terms, heading_terms, extra_terms)
        VALUES (new.id, new.text_terms, new.heading_terms, new.extra_terms);
    END;
    CREATE TRIGGER segments_ad AFTER DELETE ON segments WHEN old.text_terms IS NULL BEGIN
        INSERT INTO segments_fts(segments_fts, rowid, text, heading, extra)
        VALUES ('delete', old.id, old.text, old.heading, old.extra);
    END;
    CREATE TRIGGER segments_terms_ad AFTER DELETE ON segments WHEN old.text_terms IS NOT NULL
    BEGIN
        INSERT INTO segments_terms(segments_terms, rowid, text_terms, heading_terms, extra_terms)
        VALUES ('delete', old.id, old.text_terms, old.heading_terms, old.extra_terms);
    END;
    CREATE TRIGGER segments_au AFTER UPDATE ON segments
    WHEN old.text_terms IS NULL AND new.text_terms IS NULL BEGIN
        INSERT INTO segments_fts(segments_fts, rowid, text, heading, extra)
        VALUES ('delete', old.id, old.text, old.heading, old.extra);
        INSERT INTO segments_fts(rowid, text, heading, extra)
        VALUES (new.id, new.text, new.heading, new.extra);
    END;
    CREATE TRIGGER segments_au_to_terms AFTER UPDATE ON segments
    WHEN old.text_terms IS NULL AND new.text_terms IS NOT NULL BEGIN
        INSERT INTO segments_fts(segments_fts, rowid, text, heading, extra)
        VALUES ('delete', old.id, old.text, old.heading, old.extra);
        INSERT INTO segments_terms(rowid, text_terms, heading_terms, extra_terms)
        VALUES (new.id, new.text_terms, new.heading_terms, new.extra_terms);
    END;
    CREATE TRIGGER segments_au_terms AFTER UPDATE ON segments
    WHEN old.text_terms IS NOT NULL AND new.text_terms IS NOT NULL BEGIN
        INSERT INTO segments_terms(segments_terms, rowid, text_terms, heading_terms, extra_terms)
        VALUES ('delete', old.id, old.text_terms, old.heading_terms, old.extra_terms);
        INSERT INTO segments_terms(rowid, text_terms, heading_terms, extra_terms)
        VALUES (new.id, new.text_terms, new.heading_terms, new.extra_terms);
    END;
    CREATE TRIGGER segments_au_to_porter AFTER UPDATE ON segments
    WHEN old.text_terms IS NOT NULL AND new.text_terms IS NULL BEGIN
        INSERT INTO segments_terms(segments_terms, rowid, text_terms, heading_terms, extra_terms)
        VALUES ('delete', old.id, old.text_terms, old.heading_terms, old.extra_terms);
        INSERT INTO segments_fts(rowid, text, heading, extra)
        VALUES (new.id, new.text, new.heading, new.extra);
    END;
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)
# The oldest version a read-only library can be searched at: later steps change only rows.
READABLE_VERSION = 3
