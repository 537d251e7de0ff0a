"""Regenerate the built-in demo course in resources/demo/ ("Algorithms 101").

Run: ``uv run python resources/make_demo.py [OUT_DIR]``. Every byte of the text files is a
function of this file: the PDF has a fixed creation date, no compression (zlib builds differ)
and core fonts only; the zip has fixed timestamps and stored members. The lecture video is
the PDF's pages shown while espeak-ng narrates LECTURE, joined by ffmpeg (both needed to
regenerate it; its bytes depend on their versions). tests/engine/test_demo.py checks that the
committed files are what this script writes, so edit the text here, not there.
All text below was written for Coursedex; none of it is copied from elsewhere.
"""

from __future__ import annotations

import datetime as dt
import io
import logging
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fpdf import FPDF

logger = logging.getLogger(__name__)

DEMO_DIR = Path(__file__).resolve().parent / "demo"
COURSE_TITLE = "Algorithms 101"
SLIDES_FILE = "slides.pdf"
VIDEO_FILE = "lecture-01-sorting.mp4"
CODE_FILE = "code.zip"
NOTES_FILE = "notes.md"
HANDOUT_FILE = "handout-week-5.docx"
WHITEBOARD_FILE = "whiteboard.jpg"
README_FILE = "README.md"
QUERIES_FILE = "queries.txt"
# The course material an ingest should index; README.md and queries.txt describe it.
COURSE_FILES = (SLIDES_FILE, VIDEO_FILE, CODE_FILE, NOTES_FILE, HANDOUT_FILE, WHITEBOARD_FILE)
# Byte for byte the same on every run. The lecture and the photo are media: their bytes
# depend on the versions of the encoders (ffmpeg, espeak-ng, libjpeg) that make them.
TEXT_FILES = (SLIDES_FILE, CODE_FILE, NOTES_FILE, HANDOUT_FILE, README_FILE, QUERIES_FILE)

_CREATED = dt.datetime(2024, 9, 2, 9, 0, 0, tzinfo=dt.UTC)
_ZIP_TIME = (2024, 9, 2, 9, 0, 0)
_VIDEO_FPS = 5  # slides are stills: few frames keep the file small
# The narration's voice: of espeak-ng's English voices, the one tiny.en transcribes best
# (en-us gave "merge sword", "quick sword" and "the vivit"; Received Pronunciation gets the
# sorts, "pivot" and "stable" right).
_VOICE = "en-gb-x-rp"
_SENTENCE_PAUSE_S = 0.3
_SLIDE_PAUSE_S = 0.9


@dataclass(frozen=True, slots=True)
class Slide:
    title: str
    bullets: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DemoQuery:
    """An example query, the file holding its best answer, and a phrase only that file has."""

    text: str
    best_file: str
    evidence: str


SLIDES: tuple[Slide, ...] = (
    Slide(
        "Algorithms 101: Sorting and Searching",
        (
            "Lecture 1",
            "Why ordered data is fast to search",
            "Measuring cost with Big-O notation",
            "Three classic algorithms and one data structure",
        ),
    ),
    Slide(
        "Big-O notation",
        (
            "Counts how the work grows with the input size n",
            "Drop constants: 3n + 5 steps is O(n)",
            "O(1) < O(log n) < O(n) < O(n log n) < O(n²)",
            "Worst case unless stated otherwise",
        ),
    ),
    Slide(
        "Binary search",
        (
            "Linear search checks every item: O(n)",
            "Binary search needs sorted input",
            "Halve the candidate range at every step: O(log n)",
            "1,000,000 items: at most 20 comparisons",
            "Test the edges: empty list, one item, target out of range",
        ),
    ),
    Slide(
        "Merge sort: divide and conquer",
        (
            "Split the list into two halves",
            "Sort each half recursively",
            "Merge the two sorted halves in linear time",
            "O(n log n) on every input",
            "Needs O(n) extra memory for the merge",
        ),
    ),
    Slide(
        "Quicksort partitioning",
        (
            "Pick a pivot element",
            "Partition: smaller keys left, larger keys right",
            "Recurse on both sides, in place",
            "Average O(n log n), worst case O(n²)",
            "Median-of-three pivot avoids the sorted-input trap",
        ),
    ),
    Slide(
        "Hash tables",
        (
            "A hash function maps each key to a bucket",
            "Average O(1) insert and lookup",
            "Collisions: chaining or open addressing",
            "Load factor = entries / buckets",
            "Resize and rehash when the load factor passes 0.75",
        ),
    ),
    Slide(
        "Choosing an algorithm",
        (
            "Small or nearly sorted input: insertion sort",
            "Guaranteed O(n log n): merge sort or heapsort",
            "Fast in practice and in place: quicksort",
            "Only membership lookups: a hash table",
            "Range queries: keep data sorted, use binary search",
        ),
    ),
    Slide(
        "Summary and next week",
        (
            "Sorted data makes search logarithmic",
            "Divide and conquer sorts in O(n log n)",
            "Hashing trades order for constant-time lookups",
            "Exercise: add upper_bound to binary_search.py",
            "Next week: trees and heaps",
        ),
    ),
)

# What the lecturer says while each slide is shown (index into SLIDES, sentences).
LECTURE: tuple[tuple[int, tuple[str, ...]], ...] = (
    (
        0,
        (
            "Good morning everyone, and welcome to Algorithms 101.",
            "Today is about two everyday jobs: putting things in order, and finding them again.",
            "You do both all the time, even if you never call them algorithms.",
            "Think of looking up a name in a phone book.",
            "Nobody starts on page one and reads every name until they hit the right one.",
            "You open it in the middle and see which side your name is on.",
            "Then you throw away the other half and repeat.",
            "That trick only works because the phone book is sorted.",
            "So sorting and searching belong together, and that is the thread of this lecture.",
            "First, though, we need a way to talk about how fast something is.",
        ),
    ),
    (
        1,
        (
            "This is Big-O notation.",
            "It does not measure seconds; it measures how the work grows as the input grows.",
            "We call the size of the input n.",
            "If an algorithm takes three n plus five steps, we just say it is order n.",
            "The constants depend on your machine and your language, so we drop them.",
            "What matters is the shape of the curve.",
            "Constant beats logarithmic, which beats linear, which beats n log n.",
            "And all of those beat quadratic.",
            "For a million items, n squared is a trillion steps, and n log n is twenty million.",
            "Unless I say otherwise, I always mean the worst case.",
        ),
    ),
    (
        2,
        (
            "Let's start with searching.",
            "Linear search is what you do with an unsorted pile: check every item in turn.",
            "That is order n, and sometimes it is the best you can do.",
            "But if the data is sorted, we can use binary search.",
            "Binary search is the phone book trick, made precise.",
            "Keep two markers, low and high, around the part that could still hold the target.",
            "Look at the middle element.",
            "If it is too small, move low past it; if it is too big, move high below it.",
            "Every comparison halves the range, so the cost is order log n.",
            "With a million items you need about twenty comparisons, never more.",
            "The idea is simple, but off-by-one mistakes in the loop bounds are very common.",
            "So test an empty list, a single item, and a target smaller than everything.",
        ),
    ),
    (
        3,
        (
            "Now sorting, and our first real algorithm: merge sort.",
            "It is the classic example of divide and conquer.",
            "Split the list into two halves, sort each half, and then merge them.",
            "Sorting each half is the same problem again, so merge sort calls itself.",
            "A list with one item is already sorted, and that is where the recursion stops.",
            "The merge step is the clever part.",
            "Look at the front of both halves, take the smaller one, and repeat.",
            "That is linear in the total length.",
            "There are log n levels of splitting, and each level does linear work.",
            "So merge sort is n log n, on every input.",
            "The price is memory: the merge needs a second buffer as large as the input.",
            "Merge sort has one more property, and it comes up in every interview.",
            "It is a stable sort.",
            "Stable means that items with equal keys keep the order they had before sorting.",
            "Imagine a hand of playing cards that you already sorted by suit.",
            "Now sort the hand again by rank, with a stable sort.",
            "The two sevens keep their order, because a stable sort never swaps two equal items.",
            "The merge gets this for free: when two keys are equal, it takes the left one first.",
        ),
    ),
    (
        4,
        (
            "Quicksort is the other famous divide and conquer sort.",
            "Merge sort does an easy split and a hard merge.",
            "Quicksort does a hard split and then needs no merge at all.",
            "First we pick one element, the pivot.",
            "Then we partition: smaller keys move to the left, larger keys to the right.",
            "After that, the pivot sits exactly where it belongs in the final order.",
            "We recurse on the left part and on the right part, and we are done.",
            "Partitioning works in place by swapping, so quicksort needs almost no extra memory.",
            "On average it runs in n log n, and in practice it is often the fastest of them all.",
            "But there is a trap.",
            "Say you always take the first element as the pivot, and the input is already sorted.",
            "Every split is now lopsided, and quicksort degrades to n squared.",
            "A common fix is the median of three.",
            "Look at the first, middle and last elements, and take the middle one as the pivot.",
            "Quicksort is not stable, so your playing cards may come out in a different order.",
        ),
    ),
    (
        5,
        (
            "Sometimes you do not need order at all, you just need to find things fast.",
            "That is what a hash table is for.",
            "A hash function turns a key, say a student number, into a bucket number.",
            "To look something up, you compute the hash and go straight to that bucket.",
            "On average that is constant time, no matter how many items are stored.",
            "Two keys can land in the same bucket, and we call that a collision.",
            "One fix is called chaining: each bucket keeps a short list of its keys.",
            "The other is open addressing, where you probe for the next free slot.",
            "The catch is that a hash table keeps no order.",
            "You cannot ask it for every key between two values.",
        ),
    ),
    (
        6,
        (
            "So which one should you use?",
            "For a handful of items, or almost sorted data, use insertion sort.",
            "If you need a guaranteed n log n, take merge sort, or heapsort if memory is tight.",
            "If you want speed and can live without stability, quicksort is a good default.",
            "If you only ask whether a key is present, use a hash table.",
            "If you need ranges, like all grades between sixty and seventy, sort and search.",
            "In real code you will rarely write these yourself; the standard library is excellent.",
            "But knowing how they work tells you what you are getting, and when it will hurt.",
        ),
    ),
    (
        7,
        (
            "Let me sum up.",
            "Sorted data turns search from linear into logarithmic.",
            "Divide and conquer gives us sorting in n log n.",
            "Hashing gives up order in exchange for constant time lookups.",
            "This week's code has merge sort, quicksort and binary search.",
            "Your exercise: find the position just after the last copy of a number.",
            "Next week we look at trees and heaps.",
            "Thanks for listening, and see you on Thursday.",
        ),
    ),
)

# How espeak-ng is asked to say what tiny.en mishears: "quicksort" in one breath was heard as
# "which sort" or "quick sword".
SPOKEN = {
    "Big-O": "Big Oh",
    "Quicksort": "Quick sort",
    "quicksort": "quick sort",
    "heapsort": "heap sort",
}

# The answer to "why is merge sort stable", and where it starts in the video (ms): a search
# plays it from there (tests/engine/test_demo_lecture.py; test_demo.py checks the time).
STABLE_ANSWER = "Merge sort has one more property, and it comes up in every interview."
STABLE_ANSWER_MS = 179_600

NOTES = """\
# Algorithms 101: course notes

These notes go with the slides and the recorded lectures. They add the history and a few
details we had no time for in class.

## Week 1: measuring cost, and searching

We describe the cost of an algorithm by how its running time grows with the size of its input,
written n. Big-O keeps the fastest-growing term and drops constant factors, because those
depend on the machine and the language rather than on the idea. A program that needs 4n + 100
steps and one that needs n/2 steps are both O(n).

Binary search finds a key in a sorted array by comparing it with the middle element and
discarding the half that cannot contain it. Each comparison halves the candidate range, so an
array of n elements needs about log2(n) comparisons. Donald Knuth remarks that binary search
was first published in 1946, yet the first version that works correctly for every n did not
appear until 1962. Write the loop invariant down before you write the loop.

## Week 2: sorting

John von Neumann described merge sort in 1945. It splits the input in two, sorts each half
recursively and merges the results; every level of the recursion does linear work and there
are log2(n) levels, which gives O(n log n) comparisons on every input.

Tony Hoare developed quicksort in 1959, while working on machine translation in Moscow, and
published it in 1961. Its speed comes from partitioning in place: after one pass the pivot is
in its final position and the two sides can be sorted independently.

No comparison sort can beat n log n in the worst case. There are n! possible orders of n
distinct keys and each comparison has two outcomes, so a correct algorithm needs at least
log2(n!) comparisons, which grows like n log2(n).

## Week 3: hash tables

Hans Peter Luhn of IBM proposed hashing with chained buckets in an internal memo in 1953.
A hash table stores each entry in a bucket chosen from its key, so insert and lookup take
constant time on average, whatever the number of entries.

Python's dict is a hash table with open addressing. Since Python 3.7 the language guarantees
that a dict remembers insertion order; this is kept in a separate compact array of entries,
not in the hash table itself.

## Week 4: sorting in practice

Tim Peters wrote Timsort for Python in 2002. It is a hybrid of merge sort and insertion sort
that looks for runs that are already in order, which makes it very fast on real data that is
partly sorted. Java adopted it to sort arrays of objects in Java 7.

Library sorts take a key function: `sorted(students, key=lambda s: s.grade)` sorts by grade
without writing a comparison. Sorting by two keys is easiest with a tuple key such as
`(s.grade, s.name)`.
"""

MERGE_SORT_PY = '''\
"""Merge sort: split the list in half, sort both halves, merge them.

O(n log n) comparisons on every input, O(n) extra memory for the merged lists.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")


def _identity(item: Any) -> Any:
    return item


def merge(left: Sequence[T], right: Sequence[T], key: Callable[[T], Any]) -> list[T]:
    """Merge two sequences that are each sorted by ``key`` into one sorted list."""
    merged: list[T] = []
    i = j = 0
    while i < len(left) and j < len(right):
        # On a tie take from the left half, so equal keys keep their input order.
        if key(right[j]) < key(left[i]):
            merged.append(right[j])
            j += 1
        else:
            merged.append(left[i])
            i += 1
    # One side is used up; what is left of the other is already in order.
    merged.extend(left[i:])
    merged.extend(right[j:])
    return merged


def merge_sort(items: Sequence[T], key: Callable[[T], Any] | None = None) -> list[T]:
    """Return a new sorted list; ``items`` itself is not changed."""
    sort_key = key if key is not None else _identity
    if len(items) <= 1:
        return list(items)
    middle = len(items) // 2
    left = merge_sort(items[:middle], sort_key)
    right = merge_sort(items[middle:], sort_key)
    return merge(left, right, sort_key)


if __name__ == "__main__":
    print(merge_sort([38, 27, 43, 3, 9, 82, 10]))
'''

QUICKSORT_PY = '''\
"""Quicksort with median-of-three pivots and Lomuto partitioning, sorting a list in place."""

from __future__ import annotations

from typing import Any


def median_of_three(items: list[Any], lo: int, hi: int) -> int:
    """Index of the median of the first, middle and last element of items[lo..hi]."""
    mid = (lo + hi) // 2
    a, b, c = items[lo], items[mid], items[hi]
    if a < b:
        if b < c:
            return mid
        return hi if a < c else lo
    if a < c:
        return lo
    return hi if b < c else mid


def partition(items: list[Any], lo: int, hi: int) -> int:
    """Partition items[lo..hi] around a pivot and return the pivot's final index."""
    chosen = median_of_three(items, lo, hi)
    items[chosen], items[hi] = items[hi], items[chosen]
    pivot = items[hi]
    store = lo
    for i in range(lo, hi):
        if items[i] < pivot:
            items[i], items[store] = items[store], items[i]
            store += 1
    items[store], items[hi] = items[hi], items[store]
    return store


def quicksort(items: list[Any], lo: int = 0, hi: int | None = None) -> None:
    """Sort items[lo..hi] (inclusive) in place."""
    if hi is None:
        hi = len(items) - 1
    while lo < hi:
        p = partition(items, lo, hi)
        # Recurse into the smaller side and loop on the larger one: the call stack
        # then stays O(log n) deep even when the splits are lopsided.
        if p - lo < hi - p:
            quicksort(items, lo, p - 1)
            lo = p + 1
        else:
            quicksort(items, p + 1, hi)
            hi = p - 1


if __name__ == "__main__":
    data = [5, 2, 9, 1, 5, 6, 3]
    quicksort(data)
    print(data)
'''

BINARY_SEARCH_PY = '''\
"""Binary search over sorted sequences, and a small list that stays sorted."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any


def binary_search(items: Sequence[Any], target: Any) -> int:
    """Return an index of ``target`` in the sorted ``items``, or -1 if it is absent."""
    lo, hi = 0, len(items) - 1
    while lo <= hi:
        # Midpoint as lo + (hi - lo) // 2, not (lo + hi) // 2. Python integers never
        # overflow, but in C or Java lo + hi can overflow a 32-bit int on a big array and
        # turn negative; that exact bug was found in Java's standard library in 2006.
        mid = lo + (hi - lo) // 2
        if items[mid] < target:
            lo = mid + 1
        elif target < items[mid]:
            hi = mid - 1
        else:
            return mid
    return -1


def lower_bound(items: Sequence[Any], target: Any) -> int:
    """First index whose item is not less than ``target`` (len(items) if there is none)."""
    lo, hi = 0, len(items)
    while lo < hi:
        mid = lo + (hi - lo) // 2
        if items[mid] < target:
            lo = mid + 1
        else:
            hi = mid
    return lo


class SortedList:
    """A list kept in sorted order: O(log n) membership, O(n) insert."""

    def __init__(self, items: Iterable[Any] = ()) -> None:
        self._items = sorted(items)

    def add(self, item: Any) -> None:
        self._items.insert(lower_bound(self._items, item), item)

    def __contains__(self, item: object) -> bool:
        return binary_search(self._items, item) >= 0

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._items)

    def between(self, low: Any, high: Any) -> list[Any]:
        """Items with low <= item < high: the range query a hash table cannot answer."""
        return self._items[lower_bound(self._items, low) : lower_bound(self._items, high)]
'''

CODE_README_MD = """\
# Algorithms 101: code for lecture 1

- `sorting/merge_sort.py`: top-down merge sort that returns a new list.
- `sorting/quicksort.py`: in-place quicksort with a median-of-three pivot.
- `searching/binary_search.py`: `binary_search`, `lower_bound` and a `SortedList`.

Each file runs on its own, for example `python sorting/merge_sort.py`.

Exercise: add `upper_bound(items, target)` to `searching/binary_search.py`, returning the index
just after the last item equal to `target`, and use it to make `SortedList.between` include
its upper end. Try it on a list where every item is the same.
"""

CODE_MEMBERS: tuple[tuple[str, str], ...] = (
    ("README.md", CODE_README_MD),
    ("searching/binary_search.py", BINARY_SEARCH_PY),
    ("sorting/merge_sort.py", MERGE_SORT_PY),
    ("sorting/quicksort.py", QUICKSORT_PY),
)

QUERIES: tuple[DemoQuery, ...] = (
    DemoQuery("why is merge sort stable", VIDEO_FILE, "playing cards"),
    DemoQuery("binary search midpoint overflow", CODE_FILE, "overflow"),
    DemoQuery("when should a hash table resize", SLIDES_FILE, "load factor"),
    DemoQuery("who wrote Timsort", NOTES_FILE, "Tim Peters"),
    DemoQuery("looking up a name in a phone book", VIDEO_FILE, "phone book"),
    DemoQuery("how does a heap sift down", HANDOUT_FILE, "sift"),
    DemoQuery("master theorem for merge sort", WHITEBOARD_FILE, "master theorem"),
)

# The week 5 handout, a Word document: (heading, paragraphs) sections, a table of costs and
# a teaching assistant's comment on its first paragraph.
HANDOUT_TITLE = "Week 5 handout: trees and heaps"
HANDOUT: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "Binary heaps",
        (
            "A binary heap is a complete binary tree kept in an array: the children of the "
            "node at index i sit at 2i + 1 and 2i + 2, so no pointers are stored.",
            "In a min-heap every parent is at most its children, so the smallest key is "
            "always at index 0.",
        ),
    ),
    (
        "Insert and remove the minimum",
        (
            "To insert, append the key and sift up: swap it with its parent while it is "
            "smaller. To remove the minimum, move the last key to the root and sift down: "
            "swap it with its smaller child until neither child is smaller.",
            "Both walk one path from the root to a leaf, so each takes O(log n) steps.",
        ),
    ),
    (
        "Building a heap",
        (
            "Sifting down every internal node, from the last one back to the root, builds a "
            "heap from an unordered array in linear time: most nodes are near the bottom and "
            "move only a little.",
        ),
    ),
)
HANDOUT_TABLE = (
    ("Operation", "Binary heap", "Sorted array"),
    ("find minimum", "O(1)", "O(1)"),
    ("insert", "O(log n)", "O(n)"),
    ("remove minimum", "O(log n)", "O(1) from the end"),
)
HANDOUT_COMMENT = ("Teaching assistant", "Last year's exam asked for the linear-time build.")
# What the whiteboard photo shows, one line each (written big, as a lecturer writes).
WHITEBOARD = (
    "Merge sort: T(n) = 2 T(n/2) + n",
    "Master theorem, case 2: each level of",
    "the recursion does the same work, so",
    "T(n) = O(n log n)",
)

DEMO_README = f"""\
# The demo course: {COURSE_TITLE}

This folder is the small course that Coursedex shows on first start, so that search works
before you import anything of your own: a slide deck (`{SLIDES_FILE}`), the first lecture as
a narrated video (`{VIDEO_FILE}`: the slides on screen, the narration spoken by espeak-ng;
Coursedex transcribes it on first start), a code archive (`{CODE_FILE}`), course notes
(`{NOTES_FILE}`), a Word handout (`{HANDOUT_FILE}`) and a photo of the whiteboard
(`{WHITEBOARD_FILE}`, read with OCR), about sorting and searching algorithms. We wrote all of
it for Coursedex; it is covered by the project's licence. Every file here is generated by
`uv run python resources/make_demo.py`, which writes the same text bytes on every run, and a
test fails when the committed files differ from its output, so change the text in the script and
regenerate rather than editing these files. `{QUERIES_FILE}` lists example queries, each
answered best by a different kind of material; `scripts/demo` ingests this course into the
default library and runs them.
"""


def slides_pdf() -> bytes:
    """The slide deck: 16:9 landscape pages, core fonts, a real text layer."""
    pdf = FPDF(orientation="L", unit="mm", format=(190.5, 338.67))
    pdf.set_creation_date(_CREATED)
    pdf.set_producer("Coursedex make_demo.py")
    pdf.set_creator("Coursedex make_demo.py")
    pdf.set_title(f"{COURSE_TITLE}: Sorting and Searching")
    pdf.set_author("Coursedex")
    # Uncompressed streams keep the bytes independent of the zlib build.
    pdf.set_compression(False)
    pdf.set_auto_page_break(auto=False)
    for number, slide in enumerate(SLIDES, start=1):
        pdf.add_page()
        pdf.set_fill_color(28, 52, 94)
        pdf.rect(0, 0, pdf.w, 38, style="F")
        pdf.set_text_color(255, 255, 255)
        pdf.set_font("Helvetica", "B", 34)
        pdf.set_xy(18, 10)
        pdf.cell(w=pdf.w - 36, h=18, text=slide.title)
        pdf.set_text_color(40, 40, 40)
        pdf.set_font("Helvetica", "", 22)
        y = 56.0
        for bullet in slide.bullets:
            pdf.set_fill_color(200, 90, 40)
            pdf.rect(24, y + 4, 3.5, 3.5, style="F")
            pdf.set_xy(34, y)
            pdf.cell(w=pdf.w - 60, h=11, text=bullet)
            y += 21
        pdf.set_text_color(120, 120, 120)
        pdf.set_font("Helvetica", "", 12)
        pdf.set_xy(18, pdf.h - 16)
        pdf.cell(w=150, h=8, text=f"{COURSE_TITLE} - Lecture 1")
        pdf.set_xy(pdf.w - 48, pdf.h - 16)
        pdf.cell(w=30, h=8, text=f"{number} / {len(SLIDES)}", align="R")
    return bytes(pdf.output())


def spoken(sentence: str) -> str:
    """``sentence`` as espeak-ng is asked to say it: with :data:`SPOKEN`'s respellings."""
    for written, said in SPOKEN.items():
        sentence = sentence.replace(written, said)
    return sentence


def lecture_video(path: Path, slides: Path) -> list[int]:
    """The narrated lecture: each page of ``slides`` on screen while its part is spoken.

    Each sentence is spoken on its own and followed by a short pause (a longer one before
    the next slide): the speech model then hears where a sentence ends, and a search seeks
    to the start of one. Returns when each sentence of LECTURE starts (ms), in order. Needs
    ffmpeg and espeak-ng.
    """
    import tempfile

    root = str(Path(__file__).resolve().parent.parent)
    if root not in sys.path:
        sys.path.insert(0, root)  # run as a script: tools/ is beside resources/
    from tools.lecture_media import Clip, make_lecture_video, pdf_page_images

    with tempfile.TemporaryDirectory(prefix="demo-") as tmp:
        pages = pdf_page_images(slides, Path(tmp))
        clips = [
            Clip(pages[slide], spoken(sentence), pad_s=pause)
            for slide, section in LECTURE
            for j, sentence in enumerate(section)
            for pause in [_SLIDE_PAUSE_S if j == len(section) - 1 else _SENTENCE_PAUSE_S]
        ]
        return make_lecture_video(path, clips, fps=_VIDEO_FPS, voice=_VOICE, crf=34)


def code_zip() -> bytes:
    """The code archive. Members are stored, not deflated: output bytes then do not depend
    on the zlib build, and the files are a few KB."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in CODE_MEMBERS:
            info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
            info.compress_type = zipfile.ZIP_STORED
            info.create_system = 3  # Unix, so the permission bits below mean what they say
            info.external_attr = 0o100644 << 16
            archive.writestr(info, text.encode("utf-8"))
    return buffer.getvalue()


def handout_docx() -> bytes:
    """The Word handout, written by python-docx, then stored again with fixed dates: a Word
    file is a zip whose members python-docx stamps with the time it writes them."""
    import docx

    document = docx.Document()
    properties = document.core_properties
    properties.title, properties.author = HANDOUT_TITLE, "Coursedex"
    properties.created = properties.modified = _CREATED.replace(tzinfo=None)
    properties.last_modified_by, properties.revision = "Coursedex", 1
    document.add_heading(HANDOUT_TITLE, level=0)
    first = None
    for heading, paragraphs in HANDOUT:
        document.add_heading(heading, level=1)
        for text in paragraphs:
            paragraph = document.add_paragraph(text)
            first = first or paragraph
    document.add_heading("Costs", level=1)
    table = document.add_table(rows=len(HANDOUT_TABLE), cols=len(HANDOUT_TABLE[0]))
    for r, row in enumerate(HANDOUT_TABLE):
        for c, text in enumerate(row):
            table.cell(r, c).text = text
    if first is not None:
        author, text = HANDOUT_COMMENT
        document.add_comment(first.runs, text=text, author=author, initials="TA")
    _slimmed(document)
    written = io.BytesIO()
    document.save(written)
    out = io.BytesIO()
    with zipfile.ZipFile(written) as source, zipfile.ZipFile(out, "w") as archive:
        for member in source.infolist():
            info = zipfile.ZipInfo(member.filename, date_time=_ZIP_TIME)
            info.compress_type = zipfile.ZIP_STORED
            archive.writestr(info, _fixed_dates(member.filename, source.read(member)))
    return out.getvalue()


# Parts of python-docx's template that a handout does without: Word 2010's copy of every
# style (438 KB), a thumbnail and an empty custom XML item; stored uncompressed, the file is
# 60 KB instead of 830 KB.
_UNNEEDED_PARTS = ("stylesWithEffects", "thumbnail", "customXml")


def _slimmed(document: Any) -> None:
    """Leave out the template's unneeded parts and the styles the handout does not use."""
    for rels in (document.part.rels, document.part.package.rels):
        for rid, rel in list(rels.items()):
            if any(kind in rel.reltype for kind in _UNNEEDED_PARTS):
                rels.pop(rid)
    styles = document.styles.element
    ns = {"w": styles.nsmap["w"]}
    used: set[str] = set()
    for part in (document.part, document.part._comments_part):
        used.update(part.element.xpath("//w:pStyle/@w:val | //w:rStyle/@w:val"))
        used.update(part.element.xpath("//w:tblStyle/@w:val"))
    by_id = {st.get(f"{{{ns['w']}}}styleId"): st for st in styles.xpath("w:style")}
    keep = {sid for sid, st in by_id.items() if st.get(f"{{{ns['w']}}}default") == "1"}
    todo = list(used | keep)
    while todo:  # the styles they are based on, linked to and followed by
        sid = todo.pop()
        if sid in by_id and sid not in keep | {None}:
            keep.add(sid)
        style = by_id.get(sid)
        if style is not None:
            refs = style.xpath("w:basedOn/@w:val | w:link/@w:val | w:next/@w:val")
            todo += [r for r in refs if r not in keep]
    for sid, style in by_id.items():
        if sid not in keep:
            styles.remove(style)
    for latent in styles.xpath("w:latentStyles"):
        styles.remove(latent)


def _fixed_dates(name: str, data: bytes) -> bytes:
    """Comments carry the time they were made: the handout's are made on _CREATED."""
    if name != "word/comments.xml":
        return data
    import re

    return re.sub(rb'w:date="[^"]*"', b'w:date="2024-09-02T09:00:00Z"', data)


def whiteboard_photo(path: Path) -> None:
    """A photo of the whiteboard after the lecture: blue marker on a white board, lit
    unevenly, a little out of focus; JPEG as a phone saves it."""
    root = str(Path(__file__).resolve().parent.parent)
    if root not in sys.path:
        sys.path.insert(0, root)  # run as a script: tools/ is beside resources/
    from tools.document_files import make_photo

    make_photo(path, WHITEBOARD)


def build_demo(out_dir: Path, *, video: bool = True) -> list[Path]:
    """Write every demo file into ``out_dir`` (created if needed); return their paths.

    ``video=False`` writes the text files only (they do not need ffmpeg or espeak-ng), not
    the lecture and the whiteboard photo.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    contents: dict[str, bytes] = {
        SLIDES_FILE: slides_pdf(),
        CODE_FILE: code_zip(),
        NOTES_FILE: NOTES.encode("utf-8"),
        HANDOUT_FILE: handout_docx(),
        README_FILE: DEMO_README.encode("utf-8"),
        QUERIES_FILE: "".join(f"{q.text}\n" for q in QUERIES).encode("utf-8"),
    }
    written: list[Path] = []
    for name, data in contents.items():
        path = out_dir / name
        path.write_bytes(data)
        written.append(path)
    if video:
        lecture_video(out_dir / VIDEO_FILE, out_dir / SLIDES_FILE)
        written.append(out_dir / VIDEO_FILE)
        whiteboard_photo(out_dir / WHITEBOARD_FILE)
        written.append(out_dir / WHITEBOARD_FILE)
    logger.info("wrote %d demo files to %s", len(written), out_dir)
    return written


def main(argv: list[str]) -> int:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    out_dir = Path(argv[0]) if argv else DEMO_DIR
    build_demo(out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
