"""Importing files into a library: which files, read how, in what order, one commit each.

planning.py    which files an import reads, and in which course
pipeline.py    the queue, then per file: read, one commit, link slides
file_rows.py   each file's row as the import moves it along (queued, failed, moved, gone)
files.py       a file's hash, whether it changed while read, reasons for failures
removals.py    files removed from the library while the import reads them
session.py     the one owner of the import running: its files, what is removed from it
progress.py    the stages of an import and what it reports (the progress model)
estimate.py    what each file and stage is expected to cost; the time left
tracking.py    stage reports turned into each file's and the run's progress
reading.py     parse, transcribe, OCR, scan a video's frames
embedding.py   vectors for a source's segments, computed ahead of the commit
linking.py     slides lined up with the lectures that show them (align.py: the matching)
"""
