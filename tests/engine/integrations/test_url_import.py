"""Import from a URL: yt-dlp's generic extractor on a page served from 127.0.0.1 (no test
reaches the internet), with a video made by ffmpeg and its subtitles in a <track>."""

from __future__ import annotations

import argparse
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.cli import main as cli
from engine.cli.parser import byte_size
from engine.config import IngestLimits
from engine.errors import Cancelled
from engine.integrations.url_import import (
    WEB_COURSE,
    FetchProgress,
    UrlImportError,
    fetch_url,
    import_url,
    is_url,
    media_folder,
    origin_at,
    result_origin,
)
from engine.library import Library
from engine.types import SegmentKind, SourceKind
from tests.places import at_moment
from tests.web_site import CAPYBARA_MS, clear_proxies, serve_site
from tools.hostile.addresses import ADDRESSES, Address


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve_site(tmp_path_factory.mktemp("site")) as url:
        yield url


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_proxies(monkeypatch)


def test_a_page_s_video_is_fetched_indexed_and_points_back_to_the_page(
    library: Library, site: str
) -> None:
    page = f"{site}/lecture-3.html"
    report = import_url(library, page)
    assert [f.outcome.value for f in report.files] == ["indexed"], report.files
    hit = library.search("capybara largest rodent", limit=1).results[0]
    assert Path(hit.source).is_relative_to(media_folder(library))
    assert Path(hit.source).suffix == ".mp4"
    assert hit.kind == SegmentKind.TRANSCRIPT and hit.course == WEB_COURSE
    at = at_moment(hit).start_ms
    assert abs(at - CAPYBARA_MS) < 1000
    assert library.origin(hit.source) == page
    assert result_origin(library, hit.source, at) == f"{page}?t={at // 1000}"
    source = library.source(hit.source)
    assert source is not None and source.kind == SourceKind.VIDEO
    # The same page again is the same file: nothing is fetched twice or indexed again.
    again = import_url(library, page)
    assert [f.outcome.value for f in again.files] == ["unchanged"], again.files


def test_only_the_subtitles_when_asked(library: Library, site: str) -> None:
    page = f"{site}/lecture-3.html"
    report = import_url(library, page, course="Zoology", subtitles_only=True)
    assert [f.outcome.value for f in report.files] == ["indexed"], report.files
    assert not list(media_folder(library).rglob("*.mp4"))
    hit = library.search("capybara largest rodent", limit=1).results[0]
    assert hit.course == "Zoology" and Path(hit.source).suffix == ".vtt"
    assert library.origin(hit.source) == page


def test_a_missing_page_and_a_page_without_video_say_why(tmp_path: Path, site: str) -> None:
    with pytest.raises(UrlImportError, match=r"missing\.html: .*HTTP Error 404"):
        fetch_url(f"{site}/missing.html", tmp_path)
    with pytest.raises(UrlImportError, match=r"about\.html: no video or audio found on that page"):
        fetch_url(f"{site}/about.html", tmp_path)
    with pytest.raises(UrlImportError, match="the page has no subtitles"):
        fetch_url(f"{site}/media/lecture.mp4", tmp_path, subtitles_only=True)
    with pytest.raises(UrlImportError, match="not a web address"):
        fetch_url("ftp://127.0.0.1/x.mp4", tmp_path)


def test_cli_ingest_url_reports_each_page(
    tmp_path: Path, site: str, models_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["--library", str(tmp_path / "lib"), "--models", str(models_dir)]
    page, missing = f"{site}/lecture-3.html", f"{site}/missing.html"
    code = cli([*base, "ingest", missing, page, "--course", "Zoology", "--json", "--strict"])
    files = {f["path"]: f for f in json.loads(capsys.readouterr().out)["files"]}
    assert code == 1
    assert files[missing]["outcome"] == "error" and "HTTP Error 404" in files[missing]["detail"]
    (video,) = [f for p, f in files.items() if p.endswith(".mp4")]
    assert video["outcome"] == "indexed"
    assert cli([*base, "search", "capybara largest rodent", "--json", "--limit", "1"]) == 0
    (hit,) = json.loads(capsys.readouterr().out)["results"]
    assert hit["source"] == video["path"]
    assert hit["origin"] == f"{page}?t={int(hit['start'])}"


def test_origin_at_puts_the_time_in_the_page_address() -> None:
    assert (
        origin_at("https://v.example/watch?v=abc", 83_500) == "https://v.example/watch?v=abc&t=83"
    )
    assert (
        origin_at("https://v.example/watch?v=abc&t=5", 7_000) == "https://v.example/watch?v=abc&t=7"
    )
    assert origin_at("https://v.example/l.html#top", 2_000) == "https://v.example/l.html?t=2#top"
    assert origin_at("https://v.example/l.html", None) == "https://v.example/l.html"
    assert is_url("https://v.example/x") and not is_url("lecture.mp4")
    assert not is_url("C:/Users/a/lecture.mp4") and not is_url("http://")


# --- issue 25: hostile addresses (tools/hostile/addresses.py), bounds, nothing left -------

SMALL = IngestLimits(max_download_bytes=2 * 1024**2, download_stall_ms=1_000)


def _left_in(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*")) if folder.exists() else []


@pytest.mark.parametrize("address", ADDRESSES, ids=[a.path for a in ADDRESSES])
def test_a_hostile_address_ends_as_its_error_and_leaves_nothing(
    tmp_path: Path, site: str, address: Address
) -> None:
    """An endless stream grew media/ by 3 MB/s until killed; a stalled one waited for ever; a
    file:// video was a traceback that stopped the whole import; a redirect to file:// said
    "HTTP Error 302: Found"; each left a .part or an empty folder behind."""
    media = tmp_path / "media"
    url = f"{site}{address.path}"
    sizes: list[int] = []
    with pytest.raises(UrlImportError, match=address.reason) as caught:
        fetch_url(url, media, limits=SMALL, progress=lambda p: sizes.append(p.done_bytes))
    assert str(caught.value).startswith(f"cannot import {url}: ")
    assert _left_in(media) == []
    assert max(sizes, default=0) <= SMALL.max_download_bytes


def test_a_cancelled_download_leaves_nothing(tmp_path: Path, site: str) -> None:
    media, cancel = tmp_path / "media", threading.Event()

    def progress(p: FetchProgress) -> None:
        if p.done_bytes > 512 * 1024:
            cancel.set()

    with pytest.raises(Cancelled):
        fetch_url(f"{site}/endless.mp4", media, progress=progress, cancel=cancel)
    assert _left_in(media) == []


def test_a_download_that_cannot_be_imported_is_removed_unless_kept(
    library: Library, site: str
) -> None:
    """The page's video has a tone and no speech: "no speech found". The error names the URL
    (not a file the user never chose); neither the file nor its row stays."""
    url = f"{site}/media/lecture.mp4"
    (result,) = import_url(library, url).files
    assert (result.path, result.outcome.value) == (url, "error")
    assert "no speech" in result.detail and "the download was removed" in result.detail
    assert _left_in(media_folder(library)) == []
    assert library.sources() == []
    (kept,) = import_url(library, url, keep_failed=True).files
    assert kept.outcome.value == "error" and Path(kept.path).is_file()
    assert Path(kept.path).is_relative_to(media_folder(library))


def test_cli_ingest_goes_on_past_a_page_whose_video_is_a_local_file(
    tmp_path: Path, site: str, models_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 25, item 2: it was rc 1 and a traceback, the other targets never imported."""
    notes = tmp_path / "notes.md"
    notes.write_text("# Giraffes\n\nThe giraffe eats acacia leaves.\n")
    page, local = f"{site}/lecture-3.html", f"{site}/file-video.html"
    library = tmp_path / "lib"
    base = ["--library", str(library), "--models", str(models_dir)]
    code = cli([*base, "ingest", local, page, str(notes), "--json"])
    files = {f["path"]: f for f in json.loads(capsys.readouterr().out)["files"]}
    assert code == 0
    assert files[local]["outcome"] == "error"
    assert files[local]["detail"].startswith("its video is a file on a computer (file://")
    assert files[str(notes)]["outcome"] == "indexed"
    assert [f["outcome"] for p, f in files.items() if p.endswith(".mp4")] == ["indexed"]
    assert not [p for p in (library / "media").rglob("*") if p.is_dir() and not any(p.iterdir())]


def test_cli_max_download_size(
    tmp_path: Path, site: str, models_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["--library", str(tmp_path / "lib"), "--models", str(models_dir)]
    endless = f"{site}/endless.mp4"
    code = cli([*base, "ingest", endless, "--max-download-size", "1M"])
    out, err = capsys.readouterr()
    assert code == 1, (out, err)
    assert f"error: {endless}: the download went past the limit of 1 MB" in out
    assert _left_in(tmp_path / "lib" / "media") == []
    assert byte_size("500M") == 500 * 1024**2 and byte_size("2G") == 2 * 1024**3
    assert byte_size("1.5 GB") == int(1.5 * 1024**3) and byte_size("4096") == 4096


@pytest.mark.parametrize(
    "text", ["\uff1500M", "\u0665M", "\u00b2G", "1e3M", "-1M", "0", "M", "99999999T"]
)
def test_a_download_size_takes_ascii_digits_and_a_sane_range_only(text: str) -> None:
    """Like every number where it enters (engine/numbers.py): fullwidth, Arabic-Indic and
    superscript digits are not sizes, nor is nothing or too much."""
    with pytest.raises(argparse.ArgumentTypeError):
        byte_size(text)
