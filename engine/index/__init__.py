"""What a library holds besides its database rows: the vector index and how it is written.

indexer.py       the one writer of a source's rows, vectors and thumbnails, under one lock
vectors.py       hnswlib, every call under its lock; reconciled with the database at open
atomic_files.py  temp file, fsync, rename: a crash leaves the old file or the new one
"""
