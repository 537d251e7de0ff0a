"""A library folder and the facade over it: :class:`Library` opens a folder, imports files,
searches, removes and re-indexes.

    facade.py        Library: opens the folder, builds the parts below and hands each call
                     to its part (the public methods keep their names)
    parts.py         the parts built in one place from what the library opened
    records.py       Records: what it holds, read back and kept: courses, files, segments,
                     a file's transcript, chapters, pages and text; folders followed, origins
    notes.py         NoteTaking: a user's notes on moments: add at a place in a file, list,
                     remove
    keeping.py       ModelKeeping: its models in use: the embedder (checked, repaired), a
                     re-index
    content.py       Content: what changes what it holds: imports (and resumes), a parsed
                     source indexed, removals (also during an import), a course renamed
    searching.py     Searching: hybrid search, by words alone when the model cannot load
    pack_port.py     PackPort: what course packs (engine/packs) may do with it
    lectures.py      Lectures: what integrations read of a lecture or a deck, by its record
    import_runs.py   an import run with its ImportSession: removals asked during it carried
                     out as it ends, its report's Changes
    outcomes.py      what writing calls return besides their Changes (engine/changes.py):
                     Removal, LanguageSet, AddedNote
    marks.py         two reads of the library's marks compared: another process's Changes
    meaning.py       its embedder following its languages: multilingual at the first file
                     in another language than English
    folder.py        checks at open (a lost or read-only database) and library.lock, one
                     writer at a time across processes
    write_access.py  when this process may write: read only, one import at a time, the lock
    models.py        the models it loads on first use: embedder, reranker, text reader
    relanguage.py    a file's or a course's language set again, its files queued again
    recovery.py      starting a damaged library over, its sources set aside to import again
                     (what SQLite can still read of it: engine/store/salvage.py)
"""

from engine.library.facade import Library

__all__ = ["Library"]
