"""Import from a URL: yt-dlp's generic extractor on a page served from 127.0.0.1 (no test
reaches the internet), with a video made by ffmpeg and its subtitles in a <track>."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.cli import main as cli
from engine.integrations.url_import import (
    WEB_COURSE,
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
from tests.web_site import CAPYBARA_MS, clear_proxies, serve_site


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
    assert hit.start_ms is not None and abs(hit.start_ms - CAPYBARA_MS) < 1000
    assert library.origin(hit.source) == page
    assert result_origin(library, hit.source, hit.start_ms) == f"{page}?t={hit.start_ms // 1000}"
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
