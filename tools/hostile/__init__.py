"""Hostile inputs, generated (never committed), for the tests that prove an import and a
search survive them (tests/engine/**/test_hostile_*.py) and for bench/hostile_inputs.py, which
prints their figures: broken, huge, tricky and unsafe files (corpus.py) and archives
(zips.py), the corpus imported in a child process that measures itself (importer.py), and
hostile search queries and batch lines (queries.py), and hostile web addresses for the URL
import: endless, huge, stalled, file:// (addresses.py); library folders whose own folders are
links out of them, and writers killed with SIGKILL mid-write (library_state.py); and values
that were read as something else than what they say: clocks past 59, search limits, control
characters (exact.py)."""
