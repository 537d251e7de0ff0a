"""A library folder and the facade over it: :class:`Library` opens a folder, imports files,
searches, removes and re-indexes.

    facade.py        Library: wires the import pipeline, the indexer and the searcher together
    records.py       what it holds, read back and kept: courses, files, segments, a file's
                     transcript, chapters, pages and text; folders followed, origins
    notes.py         a user's notes on moments: add at a place in a file, list, remove
    keeping.py       its models in use: the embedder (checked, repaired), a re-index
    meaning.py       its embedder following its languages: multilingual at the first file
                     in another language than English
    folder.py        checks at open (a lost or read-only database) and library.lock, one
                     writer at a time across processes
    write_access.py  when this process may write: read only, one import at a time, the lock
    models.py        the models it loads on first use: embedder, reranker, text reader
    recovery.py      starting a damaged library over, its sources set aside to import again
"""

from engine.library.facade import Library

__all__ = ["Library"]
