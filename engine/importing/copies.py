"""Files taken out of zips (:mod:`engine.importing.unpacking`) that nothing needs any more:
a duplicate's, a recording's whose import failed, a removed file's, one its zip no longer
holds. Only files inside the library's ``archives/`` folder are ever removed."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from engine.importing.progress import FileResult, Outcome
from engine.index.indexer import Indexer
from engine.ingest import MEDIA_EXTENSIONS, find_sidecar
from engine.store.courses import Catalog


def forget_gone(gone: list[Path], catalog: Catalog, indexer: Indexer, storage: Path) -> None:
    """Remove the rows and copies of files a zip no longer holds."""
    for path in gone:
        known = catalog.source_by_path(str(path))
        if known is not None:
            indexer.remove_source(known.id)
        remove_copies([str(path)], storage)


def forget_copies(results: list[FileResult], storage: Path) -> list[FileResult]:
    """``results`` once the copies taken out of a zip that serve nothing are removed: a
    duplicate's (the library holds its content already: it is not a second source), and a
    recording's whose import failed (it is large; the error row stays, and importing the
    zip again takes it out again)."""
    kept: list[FileResult] = []
    for f in results:
        media = Path(f.path).suffix.lower() in MEDIA_EXTENSIONS
        failed = f.outcome == Outcome.ERROR and media
        useless = f.outcome == Outcome.DUPLICATE or failed
        if useless and remove_copies([f.path], storage) and failed:
            f = replace(f, detail=f"{f.detail} (its copy taken out of the zip was removed)")
        kept.append(f)
    return kept


def remove_copies(paths: list[str], storage: Path) -> int:
    """Remove the files at ``paths`` that were taken out of a zip into ``storage`` (with a
    recording's subtitles); returns how many were there."""
    removed = 0
    for name in paths:
        path = Path(name)
        if not path.is_relative_to(storage) or not path.is_file():
            continue
        sidecar = find_sidecar(path) if path.suffix.lower() in MEDIA_EXTENSIONS else None
        for copy in (path, sidecar):
            if copy is not None:
                copy.unlink(missing_ok=True)
        removed += 1
    return removed
