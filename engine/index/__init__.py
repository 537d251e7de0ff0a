"""What a library holds besides its database rows: the vector index and how it is written.

indexer.py       the one writer of a source's rows, vectors and thumbnails, under one lock
vector_files.py  the index file kept in step with the database: opened, reconciled, saved
reembedding.py   embedding again: lost vectors, missing cue vectors, a new model
vectors.py       hnswlib, every call under its lock; reconciled with the database at open
hnsw_files.py    an hnswlib graph made, loaded and saved with the sidecar that vouches for it
atomic_files.py  temp file, fsync, rename: a crash leaves the old file or the new one
"""
