"""Downloads and installs against a real HTTP server on 127.0.0.1 serving files from tmp_path."""

from __future__ import annotations

import hashlib
import logging
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

from engine.errors import Cancelled, DownloadError, ModelError
from engine.models.download import apply_mirror, download, part_path
from engine.models.embedder import OnnxEmbedder
from engine.models.manifest import ModelManifest
from engine.models.registry import (
    DEFAULT_EMBEDDER,
    KNOWN_MODELS,
    ModelRegistry,
    ModelSpec,
    RemoteFile,
)

REPO = "Xenova/all-MiniLM-L6-v2"


@dataclass
class ServerState:
    """What the test server does; tests flip these switches."""

    root: Path
    ranges: bool = True  # honour Range requests
    etag: bool = True  # send ETag: "<sha256>"
    wrong_etag: bool = False  # advertise a wrong sha256
    redirect: bool = False  # 302 from /resolve/ to /cdn/ with X-Linked-Etag, as HF does
    drop_after: int | None = None  # first GET of a file sends this many bytes, then hangs up
    dropped: set[str] = field(default_factory=set)
    requests: list[tuple[str, str | None]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _make_handler(state: ServerState) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            with state.lock:
                state.requests.append((self.path, self.headers.get("Range")))
            if state.redirect and "/resolve/" in self.path:
                target = state.root / self.path.lstrip("/")
                if not target.is_file():
                    self.send_error(404)
                    return
                self.send_response(302)
                self.send_header("Location", self.path.replace("/resolve/", "/cdn/", 1))
                digest = "0" * 64 if state.wrong_etag else _sha(target.read_bytes())
                self.send_header("X-Linked-Etag", f'"{digest}"')
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            path = state.root / self.path.lstrip("/").replace("/cdn/", "/resolve/", 1)
            if not path.is_file():
                self.send_error(404)
                return
            data = path.read_bytes()
            start = 0
            range_header = self.headers.get("Range")
            if state.ranges and range_header and range_header.startswith("bytes="):
                start = int(range_header[len("bytes=") :].split("-")[0])
                if start >= len(data):
                    self.send_response(416)
                    self.send_header("Content-Range", f"bytes */{len(data)}")
                    self.end_headers()
                    return
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
            else:
                self.send_response(200)
            body = data[start:]
            self.send_header("Content-Length", str(len(body)))
            if state.redirect:
                self.send_header("ETag", '"cdn-etag-not-a-sha"')
            elif state.etag:
                digest = "f" * 64 if state.wrong_etag else _sha(data)
                self.send_header("ETag", f'"{digest}"')
            self.end_headers()
            with state.lock:
                drop = state.drop_after is not None and self.path not in state.dropped
                if drop:
                    state.dropped.add(self.path)
            if drop and state.drop_after is not None:
                self.wfile.write(body[: state.drop_after])
                self.wfile.flush()
                self.close_connection = True
                return
            self.wfile.write(body)

    return Handler


@pytest.fixture(scope="module")
def real_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ModelRegistry(tmp_path_factory.mktemp("assembled")).path(DEFAULT_EMBEDDER)


@pytest.fixture
def served(tmp_path: Path, real_model: Path) -> Path:
    """The default embedder's files where Hugging Face keeps them."""
    base = tmp_path / "served" / REPO / "resolve" / "main"
    (base / "onnx").mkdir(parents=True)
    shutil.copyfile(real_model / "model.onnx", base / "onnx" / "model_quantized.onnx")
    shutil.copyfile(real_model / "tokenizer.json", base / "tokenizer.json")
    (tmp_path / "served" / "small.bin").write_bytes(bytes(range(256)) * 4096)  # 1 MiB
    return tmp_path / "served"


@pytest.fixture
def server(served: Path) -> Iterator[tuple[str, ServerState]]:
    state = ServerState(root=served)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(state))
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def _small(served: Path) -> bytes:
    return (served / "small.bin").read_bytes()


# -- download() -------------------------------------------------------------------------


def test_download_verifies_pinned_hash(server: tuple[str, ServerState], tmp_path: Path) -> None:
    url, state = server
    data = _small(state.root)
    dest = tmp_path / "out.bin"
    seen: list[tuple[int, int | None]] = []
    digest = download(
        f"{url}/small.bin",
        dest,
        sha256=_sha(data),
        size=len(data),
        progress=lambda d, t: seen.append((d, t)),
    )
    assert digest == _sha(data)
    assert dest.read_bytes() == data
    assert not part_path(dest).exists()
    assert seen[-1] == (len(data), len(data))
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_download_resumes_after_dropped_connection(
    server: tuple[str, ServerState], tmp_path: Path
) -> None:
    url, state = server
    data = _small(state.root)
    state.drop_after = 300_000
    dest = tmp_path / "out.bin"
    with pytest.raises(DownloadError, match="after 1 attempts"):
        download(f"{url}/small.bin", dest, sha256=_sha(data), retries=0)
    assert part_path(dest).stat().st_size == 300_000
    assert not dest.exists()
    download(f"{url}/small.bin", dest, sha256=_sha(data), retries=0)
    assert dest.read_bytes() == data
    assert state.requests == [("/small.bin", None), ("/small.bin", "bytes=300000-")]


def test_download_retries_by_itself(server: tuple[str, ServerState], tmp_path: Path) -> None:
    url, state = server
    data = _small(state.root)
    state.drop_after = 123_457
    dest = tmp_path / "out.bin"
    download(f"{url}/small.bin", dest, sha256=_sha(data))
    assert dest.read_bytes() == data
    assert [r for _, r in state.requests] == [None, "bytes=123457-"]


def test_server_without_range_support_restarts(
    server: tuple[str, ServerState], tmp_path: Path
) -> None:
    url, state = server
    data = _small(state.root)
    state.ranges = False
    dest = tmp_path / "out.bin"
    # Garbage in the .part: appending the full body to it would fail the checksum.
    part_path(dest).write_bytes(b"x" * 5000)
    download(f"{url}/small.bin", dest, sha256=_sha(data))
    assert dest.read_bytes() == data
    assert state.requests == [("/small.bin", "bytes=5000-")]


def test_checksum_mismatch_deletes_file(server: tuple[str, ServerState], tmp_path: Path) -> None:
    url, _ = server
    dest = tmp_path / "out.bin"
    with pytest.raises(DownloadError, match="checksum mismatch"):
        download(f"{url}/small.bin", dest, sha256="0" * 64)
    assert not dest.exists()
    assert not part_path(dest).exists()


def test_size_mismatch(server: tuple[str, ServerState], tmp_path: Path) -> None:
    url, state = server
    dest = tmp_path / "out.bin"
    with pytest.raises(DownloadError, match="expected 999"):
        download(f"{url}/small.bin", dest, size=999, sha256=_sha(_small(state.root)))
    assert not dest.exists()
    assert not part_path(dest).exists()


def test_server_etag_is_checked(server: tuple[str, ServerState], tmp_path: Path) -> None:
    url, state = server
    state.wrong_etag = True
    with pytest.raises(DownloadError, match="checksum mismatch"):
        download(f"{url}/small.bin", tmp_path / "out.bin")
    state.wrong_etag = False
    assert download(f"{url}/small.bin", tmp_path / "out.bin") == _sha(_small(state.root))


def test_linked_etag_on_redirect_is_checked(
    server: tuple[str, ServerState], tmp_path: Path
) -> None:
    url, state = server
    state.redirect = True
    state.wrong_etag = True
    file_url = f"{url}/{REPO}/resolve/main/tokenizer.json"
    with pytest.raises(DownloadError, match="checksum mismatch"):
        download(file_url, tmp_path / "tokenizer.json")
    state.wrong_etag = False
    state.drop_after = 1000  # the resumed request goes through the redirect too
    download(file_url, tmp_path / "tokenizer.json")
    assert (tmp_path / "tokenizer.json").read_bytes() == (
        state.root / REPO / "resolve" / "main" / "tokenizer.json"
    ).read_bytes()
    assert ("/" + REPO + "/cdn/main/tokenizer.json", "bytes=1000-") in state.requests


def test_no_known_checksum_warns(
    server: tuple[str, ServerState], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    url, state = server
    state.etag = False
    with caplog.at_level(logging.WARNING, logger="engine.models.download"):
        digest = download(f"{url}/small.bin", tmp_path / "out.bin")
    assert digest == _sha(_small(state.root))
    assert any("no checksum known" in r.getMessage() for r in caplog.records)


def test_http_404(server: tuple[str, ServerState], tmp_path: Path) -> None:
    url, _ = server
    dest = tmp_path / "out.bin"
    with pytest.raises(DownloadError, match="HTTP 404"):
        download(f"{url}/missing.bin", dest)
    assert not dest.exists()
    assert not part_path(dest).exists()


def test_connection_refused(tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(DownloadError, match="cannot connect"):
        download(f"http://127.0.0.1:{port}/x", tmp_path / "x", retries=1, timeout=2)


def test_cancel_keeps_part_and_resumes(server: tuple[str, ServerState], tmp_path: Path) -> None:
    url, state = server
    data = _small(state.root)
    dest = tmp_path / "out.bin"
    cancel = threading.Event()

    def progress(done: int, total: int | None) -> None:
        cancel.set()  # after the first chunk

    with pytest.raises(Cancelled):
        download(f"{url}/small.bin", dest, progress=progress, cancel=cancel)
    kept = part_path(dest).stat().st_size
    assert 0 < kept < len(data)
    assert not dest.exists()
    download(f"{url}/small.bin", dest)
    assert dest.read_bytes() == data
    assert state.requests[-1] == ("/small.bin", f"bytes={kept}-")


def test_apply_mirror() -> None:
    hf = "https://huggingface.co/Xenova/x/resolve/main/a.onnx"
    assert (
        apply_mirror(hf, "http://10.0.0.1:8080/hf/")
        == "http://10.0.0.1:8080/hf/Xenova/x/resolve/main/a.onnx"
    )
    assert apply_mirror(hf, None) == hf
    assert apply_mirror("https://example.org/a", "http://m") == "https://example.org/a"


# -- ModelRegistry.install --------------------------------------------------------------


def test_install_downloads_a_working_model(
    server: tuple[str, ServerState], tmp_path: Path, real_model: Path
) -> None:
    url, state = server
    state.drop_after = 2_000_000
    root = tmp_path / "models"
    registry = ModelRegistry(root, use_packages=False)
    seen: list[tuple[int, int | None]] = []
    path = registry.install(DEFAULT_EMBEDDER, progress=lambda d, t: seen.append((d, t)), mirror=url)
    assert path == root / DEFAULT_EMBEDDER
    assert sorted(p.name for p in root.iterdir()) == [DEFAULT_EMBEDDER]  # staging gone
    manifest = ModelManifest.load(path)
    assert manifest.model_id == ModelManifest.load(real_model).model_id
    assert manifest.source.startswith(url)
    assert registry.verify(DEFAULT_EMBEDDER) == []
    total = sum(e.size for e in manifest.files.values())
    assert seen[-1] == (total, total)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    # The model file was cut at 2 MB once and resumed; the tokenizer is smaller than that.
    assert [r for _, r in state.requests if r is not None] == ["bytes=2000000-"]

    text = ["searching lecture videos offline"]
    np.testing.assert_allclose(
        registry.load_embedder(DEFAULT_EMBEDDER, threads=1).embed(text),
        OnnxEmbedder(real_model, threads=1).embed(text),
        atol=1e-6,
    )
    requests_before = len(state.requests)
    assert registry.install(DEFAULT_EMBEDDER, mirror=url) == path
    assert len(state.requests) == requests_before  # already installed: no traffic


def _pinned_spec(served: Path, *, sha_model: str | None = None) -> ModelSpec:
    base = served / REPO / "resolve" / "main"
    model = (base / "onnx" / "model_quantized.onnx").read_bytes()
    tokenizer = (base / "tokenizer.json").read_bytes()
    default = next(s for s in KNOWN_MODELS if s.name == DEFAULT_EMBEDDER)
    prefix = f"https://huggingface.co/{REPO}/resolve/main"
    return ModelSpec(
        name="pinned-minilm",
        role=default.role,
        description="test",
        files=(
            RemoteFile(
                "model.onnx",
                f"{prefix}/onnx/model_quantized.onnx",
                sha_model or _sha(model),
                len(model),
            ),
            RemoteFile(
                "tokenizer.json", f"{prefix}/tokenizer.json", _sha(tokenizer), len(tokenizer)
            ),
        ),
        license="Apache-2.0",
        dimension=384,
    )


def test_install_checksum_mismatch_installs_nothing(
    server: tuple[str, ServerState], tmp_path: Path
) -> None:
    url, state = server
    root = tmp_path / "models"
    registry = ModelRegistry(root, specs=[_pinned_spec(state.root, sha_model="ab" * 32)])
    with pytest.raises(DownloadError, match="checksum mismatch"):
        registry.install("pinned-minilm", mirror=url)
    assert not (root / "pinned-minilm").exists()
    assert not registry.list()[0].installed
    staging = root / ".pinned-minilm.partial"
    assert not (staging / "model.onnx").exists()
    assert not part_path(staging / "model.onnx").exists()


def test_install_404_installs_nothing(server: tuple[str, ServerState], tmp_path: Path) -> None:
    url, state = server
    (state.root / REPO / "resolve" / "main" / "tokenizer.json").unlink()
    root = tmp_path / "models"
    registry = ModelRegistry(root, use_packages=False)
    with pytest.raises(DownloadError, match="HTTP 404"):
        registry.install(DEFAULT_EMBEDDER, mirror=url)
    assert not (root / DEFAULT_EMBEDDER).exists()
    with pytest.raises(ModelError, match="not installed"):
        registry.path(DEFAULT_EMBEDDER)


def test_install_cancel_then_resume(server: tuple[str, ServerState], tmp_path: Path) -> None:
    url, state = server
    root = tmp_path / "models"
    registry = ModelRegistry(root, specs=[_pinned_spec(state.root)])
    cancel = threading.Event()

    def progress(done: int, total: int | None) -> None:
        assert total is not None  # every size is pinned: the total is known from the start
        if done > 5_000_000:
            cancel.set()

    with pytest.raises(Cancelled):
        registry.install("pinned-minilm", progress=progress, cancel=cancel, mirror=url)
    part = part_path(root / ".pinned-minilm.partial" / "model.onnx")
    kept = part.stat().st_size
    assert kept > 5_000_000
    assert not (root / "pinned-minilm").exists()

    path = registry.install("pinned-minilm", mirror=url)
    assert registry.verify("pinned-minilm") == []
    assert ("/" + REPO + "/resolve/main/onnx/model_quantized.onnx", f"bytes={kept}-") in (
        state.requests
    )
    assert OnnxEmbedder(path, threads=1).embed(["x"]).shape == (1, 384)
    registry.remove("pinned-minilm")
    assert not path.exists()
