"""``coursedex mcp``: the library as a Model Context Protocol server over stdio.

A local assistant (Claude Desktop, an editor with MCP) starts this as a child process and asks
it to search the user's own courses. It is read-only: five tools that look things up and
nothing that imports, changes or deletes (the user's own notes are listed, never written).
Every hit carries a ``coursedex://`` link that opens the window at that moment. Times are
seconds here, as in the CLI's JSON.

stdout belongs to the protocol: nothing here prints; logging goes to stderr.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, ToolAnnotations

from engine import __version__
from engine.errors import CoursedexError, NotFoundError
from engine.formatting import location
from engine.integrations.links import (
    Link,
    link_of,
    make_link,
    note_link,
    parse_link,
    resolve_link,
    within_recording,
)
from engine.integrations.mcp_stdio import AnsweringServer
from engine.integrations.url_import import result_origin
from engine.library import Library
from engine.notes import note_json
from engine.numbers import MAX_ID, NumberError, seconds_ms, whole
from engine.search import SearchFilters, SearchResult
from engine.search.results import moment_ms, place_json
from engine.store import SegmentRow, Source
from engine.types import SegmentKind

log = logging.getLogger(__name__)

INSTRUCTIONS = (
    "Coursedex searches the user's own lecture videos, slides, code and notes on this machine. "
    "Use `search` first; each result has a `link` (coursedex://...) the user can open at that "
    "moment, and `segment_id` for `get_context`. `get_transcript` reads a lecture around a time. "
    "`list_notes` gives the notes the user wrote at moments; search finds them as kind bookmark."
)
MAX_LIMIT = 50
_READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)


def _sec(ms: int | None) -> float | None:
    return None if ms is None else round(ms / 1000, 3)


class CoursedexTools:
    """The tools' work, on an open library; :func:`build_server` publishes them."""

    def __init__(self, library: Library) -> None:
        self.library = library

    def search(
        self,
        query: str,
        limit: int = 5,
        course: str | None = None,
        kind: list[str] | None = None,
    ) -> dict[str, Any]:
        kinds = tuple(SegmentKind(k) for k in kind or ())
        limit = whole(limit, "limit", 1, MAX_LIMIT)  # the README's range: refused outside it
        if course:
            self.library.course(course)  # NotFoundError names a course that is not there
        outcome = self.library.search(
            query,
            limit=limit,
            filters=SearchFilters(kinds=kinds, course=course or None),
        )
        return {
            "query": query,
            "gated": outcome.gated,
            "results": [self._result(r) for r in outcome.results],
            **({"notice": outcome.notice} if outcome.notice else {}),
        }

    def _result(self, r: SearchResult) -> dict[str, Any]:
        source = self.library.source(r.source)
        place = place_json(r.place)
        return {
            "text": r.snippet,
            "source": r.source,
            "title": r.title,
            "kind": r.kind.value,
            "course": r.course,
            "start": place["start"],
            "end": place["end"],
            "page": place["page"],
            "line": place["line"],
            "path_in_archive": place["path_in_archive"],
            "where": location(r),  # to cite: "02:43", "page 3", "src/a.py:14"
            "score": round(r.score, 4),
            "strong": r.strong,
            "language": r.language,  # its file's (es, de...; None: not known)
            "segment_id": r.segment_id,
            "link": link_of(r, source.sha256 if source else None),
            "origin": result_origin(self.library, r.source, moment_ms(r.place)),
        }

    def list_courses(self) -> dict[str, Any]:
        files: dict[str, list[dict[str, Any]]] = {}
        for s in self.library.sources():
            files.setdefault(s.course, []).append(
                {
                    "source": s.path,
                    "title": s.title,
                    "kind": s.kind.value,
                    "status": s.status.value,
                    "duration": _sec(s.duration_ms),
                    "error": s.error,
                    "language": s.language,
                }
            )
        return {
            "courses": [
                {"name": c.name, "folder": c.root, "files": files.get(c.name, [])}
                for c in self.library.courses()
            ]
        }

    def list_notes(self, course: str | None = None) -> dict[str, Any]:
        notes = self.library.notes(course or None)
        return {"notes": [{**note_json(n), "link": note_link(n)} for n in notes]}

    def get_transcript(
        self, source: str, t: float | None = None, before: float = 60, after: float = 60
    ) -> dict[str, Any]:
        found = self._source(source)
        at = _link_time(source) if t is None else seconds_ms(t, "t")
        if at is not None:
            within_recording(at, found)
        lines = self.library.transcript(found.path)
        if at is not None:
            low, high = at - seconds_ms(before, "before"), at + seconds_ms(after, "after")
            lines = [c for c in lines if c.end_ms >= low and c.start_ms <= high]
        return {
            "source": found.path,
            "title": found.title,
            "course": found.course,
            "duration": _sec(found.duration_ms),
            "language": found.language,
            "lines": [
                {
                    "start": _sec(c.start_ms),
                    "end": _sec(c.end_ms),
                    "text": c.text,
                    "link": make_link(found.path, start_ms=c.start_ms, sha256=found.sha256),
                }
                for c in lines
            ],
        }

    def get_context(self, segment_id: int, around: int = 2) -> dict[str, Any]:
        hit = self.library.segment(whole(segment_id, "segment_id", 1, MAX_ID))
        if hit is None:
            raise NotFoundError(f"no segment {segment_id} in the library (search again)")
        source = self.library.source(hit.source_path)
        rows = self.library.segments_of(hit.source_path)
        same = [s for s in rows if s.kind == hit.kind]
        at = next(i for i, s in enumerate(same) if s.id == segment_id)
        span = max(0, min(around, 10))
        sha = source.sha256 if source else None
        return {
            "source": hit.source_path,
            "title": hit.source_title,
            "course": hit.course,
            "segments": [
                self._segment(s, sha, s.id == segment_id)
                for s in same[max(0, at - span) : at + span + 1]
            ],
        }

    @staticmethod
    def _segment(s: SegmentRow, sha256: str | None, hit: bool) -> dict[str, Any]:
        return {
            "segment_id": s.id,
            "hit": hit,
            "kind": s.kind.value,
            "heading": s.heading,
            "text": s.text,
            "start": _sec(s.start_ms),
            "end": _sec(s.end_ms),
            "page": s.page,
            "path_in_archive": s.path_in_archive,
            "line_start": s.line_start,
            "line_end": s.line_end,
            "link": make_link(
                s.source_path,
                start_ms=s.start_ms,
                page=s.page,
                member=s.path_in_archive,
                line=s.line_start if s.start_ms is None and s.page is None else None,
                sha256=sha256,
            ),
        }

    def _source(self, text: str) -> Source:
        """A file of the library named by its path or by a coursedex:// link to it."""
        link = parse_link(text) if text.strip().lower().startswith("coursedex:") else Link(text)
        found = self.library.source(resolve_link(self.library, link).source)
        if found is None:
            raise NotFoundError(f"{Path(text).name} is not in the library")
        return found


def _link_time(text: str) -> int | None:
    return parse_link(text).start_ms if text.strip().lower().startswith("coursedex:") else None


def _guarded(fn: Any) -> Any:
    """Our errors reach the assistant as a tool error with their one-line message; one we
    did not foresee says what it was too (the SDK's own says only "Error executing tool"),
    and the log keeps its traceback."""

    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (CoursedexError, ValueError) as e:
            raise ToolError(str(e)) from e
        except Exception as e:
            log.warning("%s failed", getattr(fn, "__name__", "a tool"), exc_info=True)
            raise ToolError(f"the tool failed ({type(e).__name__}: {e})") from e

    return call


def build_server(library: Library) -> MCPServer:
    """The MCP server on an open library (the caller closes the library)."""
    tools = CoursedexTools(library)
    server = AnsweringServer(
        "coursedex", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING"
    )
    _search_tool(server, tools)
    _listing_tools(server, tools)
    _reading_tools(server, tools)
    return server


def _search_tool(server: MCPServer, tools: CoursedexTools) -> None:
    """``search``: its limit checked as the protocol's error, the rest as the tool's."""

    @server.tool(annotations=_READ_ONLY)
    def search(
        query: str, limit: int = 5, course: str | None = None, kind: list[str] | None = None
    ) -> dict[str, Any]:
        """Search the user's courses (lecture speech, text on screen, slides, code, notes).

        Args:
            query: any text: a question, words, an identifier.
            limit: how many results (1-50).
            course: only this course (its name, see list_courses).
            kind: only these kinds: transcript, screen, slide, code, note, or bookmark
                (the user's own notes).
        """
        try:
            whole(limit, "limit", 1, MAX_LIMIT)
        except NumberError as e:  # a request the schema's caller got wrong: the protocol's error
            raise MCPError(INVALID_PARAMS, str(e)) from e
        return _guarded(tools.search)(query, limit, course, kind)


def _listing_tools(server: MCPServer, tools: CoursedexTools) -> None:
    """``list_courses`` and ``list_notes``: what the library holds."""

    @server.tool(annotations=_READ_ONLY)
    def list_courses() -> dict[str, Any]:
        """The courses in the library and their files, with each file's status."""
        return _guarded(tools.list_courses)()

    @server.tool(annotations=_READ_ONLY)
    def list_notes(course: str | None = None) -> dict[str, Any]:
        """The user's own notes at moments of their files (a time of a lecture, a page, a
        line), in lecture order, each with its link; a note whose file is gone has none.

        Args:
            course: only this course's notes (its name, see list_courses).
        """
        return _guarded(tools.list_notes)(course)


def _reading_tools(server: MCPServer, tools: CoursedexTools) -> None:
    """``get_transcript`` and ``get_context``: reading a file around a moment or a hit."""

    @server.tool(annotations=_READ_ONLY)
    def get_transcript(
        source: str, t: float | None = None, before: float = 60, after: float = 60
    ) -> dict[str, Any]:
        """A lecture's transcript, timed line by line; around a moment when one is given.

        Args:
            source: the file's path or a coursedex:// link (its t is the moment).
            t: the moment in seconds (default: the link's, else the whole transcript).
            before: seconds before the moment.
            after: seconds after the moment.
        """
        return _guarded(tools.get_transcript)(source, t, before, after)

    @server.tool(annotations=_READ_ONLY)
    def get_context(segment_id: int, around: int = 2) -> dict[str, Any]:
        """The passages just before and after a search hit in its file, the hit marked.

        Args:
            segment_id: a search result's segment_id.
            around: passages on each side (0-10).
        """
        return _guarded(tools.get_context)(segment_id, around)


def serve(library: Library) -> None:
    """Answer MCP requests on stdin/stdout until the client closes them."""
    build_server(library).run("stdio")
