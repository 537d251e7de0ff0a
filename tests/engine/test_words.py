"""The shared text module: stems are right when several threads stem at once."""

from __future__ import annotations

import random
import string
import threading

from engine import words


def test_stemming_from_several_threads_at_once() -> None:
    """The window's search threads and the import stem at the same time; one shared
    snowballstemmer gave wrong stems and IndexErrors (seen in the concurrency test)."""
    rng = random.Random(1)
    suffixes = ["ing", "ation", "ness", "ful", "ly", "ed", "s"]
    vocab = [
        "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(4, 14)))
        + rng.choice(suffixes)
        for _ in range(40_000)
    ]
    expected = {w: words.stem(w) for w in vocab}  # one thread
    words.stem.cache_clear()
    wrong: list[str] = []

    def work(part: list[str]) -> None:
        try:
            wrong.extend(w for w in part if words.stem(w) != expected[w])
        except Exception as e:  # the shared stemmer raised IndexError
            wrong.append(repr(e))

    threads = [threading.Thread(target=work, args=(vocab[i::4],)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []
    assert words.stem("Sorting") == words.stem("sorts") == "sort"
