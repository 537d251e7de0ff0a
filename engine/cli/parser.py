"""The command line's grammar: global options, then one sub-parser per command."""

from __future__ import annotations

import argparse
import os
import re

from engine.api import (
    DEFAULT_EMBEDDER,
    ENGLISH_SPEECH_MODEL,
    MAX_THREADS,
    MULTILINGUAL_EMBEDDER,
    MULTILINGUAL_SPEECH_MODEL,
    IngestLimits,
    MediaConfig,
    NumberError,
    SegmentKind,
    __version__,
    default_library,
    default_models,
    kind_named,
    whole,
)
from engine.cli import commands
from engine.cli.exports import cmd_export_anki, cmd_export_handout
from engine.cli.links import cmd_open
from engine.cli.models import cmd_eval, cmd_models
from engine.cli.notes import at_time, cmd_notes
from engine.cli.packs import add_pack_parser
from engine.cli.recover import cmd_start_over
from engine.cli.serve import cmd_mcp

INGEST_EXIT_STATUS = """exit status:
  0    every file given is in the library (indexed now, or before and unchanged), or
       some failed and the others are in it (each error is listed)
  1    something failed and none of the files given is in the library; a path does
       not exist; with --strict, any file failed; or the library cannot be opened
  2    the command line is wrong
  130  interrupted (Ctrl+C), 143 stopped (SIGTERM): the files indexed so far are kept,
       the one being read is queued again (the next ingest takes it up)"""
# The other embedder, in a student's words (an embedder finds passages by what they mean).
ANY_LANGUAGE = (
    f"{MULTILINGUAL_EMBEDDER} understands about 100 languages, and a question in one finds "
    "lectures in another (see `coursedex models list`)"
)


def positive(text: str) -> int:
    """argparse type: a whole number from 1 (ASCII digits; at most a billion)."""
    try:
        return whole(text, "it")
    except NumberError as e:
        raise argparse.ArgumentTypeError(str(e).removeprefix("it ")) from None


def threads(text: str) -> int:
    """argparse type: CPU threads, 1 to 256 (a huge number crashed onnxruntime's options)."""
    try:
        return whole(text, "it", 1, MAX_THREADS)
    except NumberError as e:
        raise argparse.ArgumentTypeError(str(e).removeprefix("it ")) from None


_SIZE = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*([kmgt]?)i?b?", re.IGNORECASE)  # ASCII digits only


def byte_size(text: str) -> int:
    """argparse type: a size in bytes, or with K, M, G or T (powers of 1024): ``500M``."""
    match = _SIZE.fullmatch(text.strip())
    if match is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size (e.g. 500M, 2G)")
    number, unit = float(match[1]), match[2].lower()
    value = int(number * 1024 ** " kmgt".index(unit or " "))
    if value < 1 or value > 2**62:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size between 1 byte and 4 EB")
    return value


def result_kind(text: str) -> str:
    """argparse type: a result kind, also by the window's name or in the plural (what a
    user types: ``--kind slides``); anything else is left for argparse to refuse."""
    kind = kind_named(text)
    return text if kind is None else kind.value


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="coursedex",
        description="Search your own lecture videos, slides, code and notes, offline.",
    )
    p.add_argument("--version", action="version", version=f"coursedex {__version__}")
    p.add_argument(
        "--library",
        default=str(default_library(os.environ)),
        help="library folder (default: $COURSEDEX_LIBRARY or the user data folder)",
    )
    p.add_argument(
        "--models",
        default=str(default_models(os.environ)),
        help="models folder (default: $COURSEDEX_MODELS or the user data folder)",
    )
    p.add_argument(
        "--threads",
        type=threads,
        default=min(4, os.cpu_count() or 2),
        help="CPU threads for models (default: up to 4)",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="log progress details")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    _ingest(sub)
    _search(sub)
    _manage(sub)
    _notes(sub)
    _models(sub)
    _eval(sub)
    s = sub.add_parser("demo", help="index the built-in demo course and run example searches")
    s.add_argument("queries", nargs="*", help="queries to run instead of the examples")
    s.set_defaults(func=commands.cmd_demo)
    add_pack_parser(sub)
    _for_other_tools(sub)
    _export(sub)
    return p


def _ingest(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    s = sub.add_parser(
        "ingest",
        help="index files and folders (a folder becomes a course) or web pages (URL)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=INGEST_EXIT_STATUS,
    )
    s.add_argument("paths", nargs="+", metavar="PATH-OR-URL")
    s.add_argument(
        "--subtitles-only",
        action="store_true",
        help="for a URL: fetch only the page's subtitles, not the video",
    )
    s.add_argument(
        "--max-download-size",
        type=byte_size,
        metavar="SIZE",
        help="for a URL: stop and remove a download larger than this (e.g. 500M, 2G; "
        f"default: {IngestLimits().max_download_bytes // 1024**3}G)",
    )
    s.add_argument(
        "--keep-downloads",
        action="store_true",
        help="for a URL: keep the downloaded file even when it cannot be indexed",
    )
    s.add_argument("--course", help="course name (default: the folder's name)")
    s.add_argument("--json", action="store_true", help="print the outcome per file as JSON")
    s.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 when any file failed, even if others were indexed",
    )
    s.add_argument(
        "--model",
        help=f"embedder for a new library, kept whatever it holds: {DEFAULT_EMBEDDER} "
        f"understands English; {ANY_LANGUAGE}. Default: the first, until a file in another "
        "language arrives, then the second (everything is embedded again, once)",
    )
    s.add_argument(
        "--speech-model",
        help=f"speech recognition model (default: {MediaConfig().speech_model}: "
        f"{ENGLISH_SPEECH_MODEL} for English lectures, {MULTILINGUAL_SPEECH_MODEL} for any "
        "other language; see `coursedex models list`)",
    )
    s.add_argument(
        "--language",
        metavar="CODE",
        help="the language of every file of this import (es, de, Spanish...): heard or read "
        "in it instead of the one detected for each file",
    )
    s.add_argument(
        "--no-screen-text",
        action="store_true",
        help="do not read text off video frames and scanned pages",
    )
    s.set_defaults(func=commands.cmd_ingest)


def _search(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    s = sub.add_parser("search", help="search the library")
    s.add_argument("query", nargs="?", help="any text")
    s.add_argument("--limit", type=positive, default=10, help="results to show (1 or more)")
    s.add_argument(
        "--kind",
        action="append",
        type=result_kind,
        choices=[k.value for k in SegmentKind],
        help="only this kind of result (repeatable; speech, slides, notes also do)",
    )
    s.add_argument("--course", help="only this course")
    s.add_argument("--json", action="store_true", help="print results as JSON")
    s.add_argument(
        "--batch",
        metavar="FILE.jsonl",
        help='queries as {"id", "query"} lines ("-" for stdin); one JSON line each',
    )
    s.add_argument("--mode", choices=["hybrid", "fulltext", "dense"], default="hybrid")
    s.add_argument("--context", action="store_true", help="show the text before and after each hit")
    s.add_argument("--model", help=argparse.SUPPRESS)
    s.set_defaults(func=commands.cmd_search)


def _manage(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    s = sub.add_parser("list", help="list courses and files with their status")
    s.add_argument("--course")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=commands.cmd_list)

    s = sub.add_parser(
        "relanguage",
        help="set the language of a file or course and import it again in that language",
        description="Set the language of a file (by path) or of every file of a course (by "
        "name) when the one detected is wrong, and import it again: a lecture is heard again "
        "in that language. Later imports of the same content keep it. --auto forgets it: "
        "the language is detected again.",
    )
    s.add_argument("target", metavar="TARGET", help="a course name or a file path")
    s.add_argument("language", metavar="LANG", nargs="?", help="a code (es) or name (Spanish)")
    s.add_argument("--auto", action="store_true", help="detect the language again")
    s.add_argument("--json", action="store_true", help="print the outcome per file as JSON")
    s.set_defaults(func=commands.cmd_relanguage)

    s = sub.add_parser("remove", help="remove a course (by name) or a file (by path)")
    s.add_argument("target")
    s.set_defaults(func=commands.cmd_remove)

    s = sub.add_parser("rename", help="rename a course")
    s.add_argument("old")
    s.add_argument("new")
    s.set_defaults(func=commands.cmd_rename)

    s = sub.add_parser("stats", help="library size and contents")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=commands.cmd_stats)

    s = sub.add_parser("reindex", help="re-embed everything (e.g. to switch embedding models)")
    s.add_argument(
        "--model",
        help="embedder to switch to (default: the one the library uses): "
        f"{DEFAULT_EMBEDDER} understands English; {ANY_LANGUAGE}",
    )
    s.set_defaults(func=commands.cmd_reindex)

    s = sub.add_parser(
        "start-over",
        help="a damaged library: keep its files aside and import again the files it held",
    )
    s.set_defaults(func=cmd_start_over)


def _notes(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    s = sub.add_parser("notes", help="your notes on moments: add, list or remove")
    ns = s.add_subparsers(dest="notes_command", metavar="ACTION", required=True)
    n = ns.add_parser(
        "add",
        help="add a note at a time of a lecture, a page of slides or a line of a file",
        description="Add a note at a place in a file of the library. It is kept when the "
        "file is imported again or moved, and found by `coursedex search --kind bookmark`.",
    )
    n.add_argument("source", metavar="SOURCE", help="the file, by its path")
    place = n.add_mutually_exclusive_group(required=True)
    place.add_argument("--at", type=at_time, metavar="MM:SS", help="a time in a lecture")
    place.add_argument("--page", type=positive, metavar="N", help="a page of slides")
    place.add_argument("--line", type=positive, metavar="N", help="a line of code or notes")
    n.add_argument("--member", metavar="PATH", help="the file inside an archive the line is in")
    n.add_argument("--json", action="store_true", help="print the note as JSON")
    n.add_argument("text", nargs="+", metavar="TEXT", help="the note (its words may be unquoted)")
    n = ns.add_parser("list", help="the notes in lecture order (course, file, place)")
    n.add_argument("--course", help="only this course")
    n.add_argument("--json", action="store_true")
    n = ns.add_parser("remove", help="remove a note by its number (see `notes list`)")
    n.add_argument("id", type=positive, metavar="ID")
    s.set_defaults(func=cmd_notes)


def _models(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    s = sub.add_parser("models", help="list, verify, install or remove models")
    ms = s.add_subparsers(dest="models_command", metavar="ACTION", required=True)
    m = ms.add_parser("list", help="known models and which are installed")
    m.add_argument("--json", action="store_true")
    m = ms.add_parser("verify", help="check installed model files against their checksums")
    m.add_argument("name", nargs="?")
    m = ms.add_parser("install", help="download a known model (resumes; checks sha256)")
    m.add_argument("name")
    m.add_argument("--mirror", help="base URL that replaces https://huggingface.co")
    m = ms.add_parser("remove", help="delete an installed model")
    m.add_argument("name")
    s.set_defaults(func=cmd_models)


def _eval(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    s = sub.add_parser("eval", help="score retrieval on a public benchmark (../shared/eval)")
    s.add_argument("benchmark", choices=["tutorialvqa", "scifact"])
    s.add_argument("--split", default="dev", choices=["dev"])
    s.add_argument("--data", help="eval data folder (default: ../shared/eval)")
    s.add_argument("--work", help="folder for the benchmark's library (default: a cache folder)")
    s.add_argument("--limit-queries", type=positive, default=None, help=argparse.SUPPRESS)
    s.add_argument("--model", help="embedder (default: all-minilm-l6-v2-int8)")
    s.add_argument("--reranker", help="cross-encoder: an installed model's name or a model folder")
    s.add_argument(
        "--ablation", action="store_true", help="one row per retrieval stage added to hybrid"
    )
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_eval)


def _for_other_tools(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    s = sub.add_parser("mcp", help="serve the library to AI assistants over MCP (stdio, read-only)")
    s.set_defaults(func=cmd_mcp)

    s = sub.add_parser(
        "open", help="show a coursedex:// link's moment in the window (here: print where it leads)"
    )
    s.add_argument("link", metavar="LINK")
    s.add_argument("--json", action="store_true", help="print the file and moment as JSON")
    s.set_defaults(func=cmd_open)


def _export(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    s = sub.add_parser("export", help="a lecture's handout or a course's flashcards, to study")
    es = s.add_subparsers(dest="export_command", metavar="WHAT", required=True)
    e = es.add_parser(
        "handout",
        help="a lecture's slides beside what was said, with its chapters, notes and links",
        description="Write a lecture's handout: its chapters, then each slide (or screen) "
        "shown beside what was said while it was up, every paragraph's time a coursedex:// "
        "link, your notes at their times. .html is one file (pictures inside, a print "
        "stylesheet: print it to PDF from a browser); .md puts its pictures in NAME_files/.",
    )
    e.add_argument("lecture", metavar="LECTURE", help="the lecture's path, file name or title")
    e.add_argument("-o", "--output", required=True, metavar="FILE", help="FILE.html or FILE.md")
    e.add_argument(
        "--force",
        action="store_true",
        help="replace FILE if it is there (never a file the library indexes)",
    )
    e.set_defaults(func=cmd_export_handout)
    e = es.add_parser(
        "anki",
        help="a course's flashcards as an Anki deck (.apkg)",
        description="Write a course's flashcards for Anki: one card per note (front: the "
        "note; back: what was said there or the slide's text, the slide, the link), or one "
        "per slide when the course has no notes. Exporting again updates the same cards.",
    )
    e.add_argument("course", metavar="COURSE", help="the course's name")
    e.add_argument("-o", "--output", required=True, metavar="FILE.apkg")
    e.add_argument(
        "--force",
        action="store_true",
        help="replace FILE if it is there (never a file the library indexes)",
    )
    e.add_argument(
        "--slides",
        action="store_true",
        help="with notes, also a card for each slide page no note is on",
    )
    e.set_defaults(func=cmd_export_anki)


def command_names() -> frozenset[str]:
    """The CLI's commands (``ingest``, ``search``, ...)."""
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            return frozenset(action.choices)
    return frozenset()
