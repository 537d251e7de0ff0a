"""One window per library: a second ``coursedex`` hands its request to the running one.

The first window listens on a local socket named after the user and the library folder; a
later ``coursedex open LINK`` (a click on a ``coursedex://`` link), ``coursedex FILE...`` (a
file manager's "Open with", a drop on the launcher) or a plain ``coursedex`` first gives its
request to that window, which shows the moment or imports the files and comes to the front,
and only opens a window of its own when no window of this user answers.

The socket file lives in a folder only this user can enter ($XDG_RUNTIME_DIR when it is
private, else a 0700 folder in the user's cache), and each end checks that the other runs as
the same user (the kernel's peer credentials): another local user can neither take the
requests, which name the user's files, nor hand the window any (issue 25). On Windows the
name is a named pipe whose access list Qt limits to the user (UserAccessOption); its peer is
not checked there.

One request is one UTF-8 line (JSON: :class:`Request`); an empty line only asks whether
someone is listening. The window answers ``ok`` once it has taken it.
"""

from __future__ import annotations

import contextlib
import getpass
import hashlib
import json
import logging
import os
import socket as sockets
import stat
import struct
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QByteArray, QEvent, QObject, Signal
from PySide6.QtGui import QFileOpenEvent
from PySide6.QtNetwork import QLocalServer, QLocalSocket

log = logging.getLogger(__name__)
CONNECT_MS = 1500
ANSWER_MS = 3000
HAND_OVER_S = 30.0  # how long a second start waits for a busy window to answer
RUNTIME_ENV = "XDG_RUNTIME_DIR"
MAX_SOCKET_PATH = 100  # sun_path holds 108 bytes on Linux, 104 on macOS


@dataclass(frozen=True, slots=True)
class Request:
    """What a second ``coursedex`` asks of the running window: a link to show, files to
    import (absolute paths), or, with neither, only to come to the front."""

    link: str | None = None
    paths: tuple[str, ...] = ()

    def encode(self) -> str:
        return json.dumps({"open": self.link, "import": list(self.paths)})

    @classmethod
    def decode(cls, line: str) -> Request:
        """A JSON request, or a bare link (as an older ``coursedex`` sends it)."""
        try:
            raw = json.loads(line)
        except ValueError:
            return cls(link=line)
        if not isinstance(raw, dict):
            return cls(link=line)
        link = raw.get("open")
        paths = raw.get("import") or []
        return cls(
            link=link if isinstance(link, str) and link else None,
            paths=tuple(p for p in paths if isinstance(p, str) and p)
            if isinstance(paths, list)
            else (),
        )


def server_name(library: Path) -> str:
    """The socket's file name: per user and per library (tests' libraries never meet the
    user's)."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container): the folder still differs
        user = ""
    key = f"{user}\0{library.resolve()}".encode()
    return f"coursedex-{hashlib.sha256(key).hexdigest()[:16]}"


def address(library: Path) -> str | None:
    """Where the window of ``library`` listens: a socket file in this user's private folder
    (the pipe's name on Windows); None when no private folder can be had (then each start
    opens its own window rather than risk handing a link to someone else)."""
    name = server_name(library)
    if sys.platform == "win32":
        return name
    for folder in _private_folders():
        path = folder / name
        if len(os.fsencode(path)) <= MAX_SOCKET_PATH:
            return str(path)
    log.warning("no private folder for the link socket: each start opens its own window")
    return None


def _private_folders() -> list[Path]:
    """$XDG_RUNTIME_DIR when it is this user's alone, then a folder of ours in the cache."""
    found: list[Path] = []
    runtime = os.environ.get(RUNTIME_ENV, "")
    if runtime and Path(runtime).is_absolute() and _is_private(Path(runtime), follow=True):
        found.append(Path(runtime))
    ours = _our_folder()
    if ours is not None:
        found.append(ours)
    return found


def _our_folder() -> Path | None:
    import platformdirs

    folder = Path(platformdirs.user_cache_dir("coursedex", appauthor=False)) / "run"
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=0o700)
        if folder.lstat().st_uid == os.getuid() and not folder.is_symlink():
            folder.chmod(0o700)  # ours, made with a looser umask by an older version
    except OSError as e:
        log.warning("cannot make the folder for the link socket %s: %s", folder, e)
        return None
    return folder if _is_private(folder, follow=False) else None


def _is_private(folder: Path, *, follow: bool) -> bool:
    """A folder (not a link to one, unless ``follow``) that only this user can enter."""
    try:
        info = folder.stat() if follow else folder.lstat()
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and info.st_mode & 0o077 == 0


def peer_uid(descriptor: int) -> int | None:
    """The user id of the process at the other end of a connected local socket; None where
    the system cannot tell (or on Windows, where a pipe has no such descriptor)."""
    if descriptor < 0 or sys.platform == "win32":
        return None
    try:
        peer = sockets.fromfd(descriptor, sockets.AF_UNIX, sockets.SOCK_STREAM)  # a dup
    except OSError:
        return None
    with peer:
        try:
            if hasattr(sockets, "SO_PEERCRED"):  # Linux: struct ucred {pid, uid, gid}
                raw = peer.getsockopt(sockets.SOL_SOCKET, sockets.SO_PEERCRED, 12)
                return struct.unpack("3i", raw)[1]
            if sys.platform == "darwin":  # LOCAL_PEERCRED: struct xucred {version, uid, ...}
                raw = peer.getsockopt(0, 0x001, 76)  # SOL_LOCAL, LOCAL_PEERCRED
                return struct.unpack_from("=II", raw)[1]
        except OSError:
            return None
    return None


def same_user(socket: QLocalSocket) -> bool:
    """Whether the process at the other end runs as this user (always so on Windows, where
    the pipe's access list admits no one else)."""
    if sys.platform == "win32":
        return True
    return peer_uid(int(socket.socketDescriptor())) == os.getuid()


def send(name: str | None, message: str) -> bool:
    """Give ``message`` to this user's window listening at ``name``; False when there is
    none, it did not take it in time (e.g. it is closing), or another user listens there."""
    if name is None:
        return False
    socket = QLocalSocket()
    socket.connectToServer(name)
    if not socket.waitForConnected(CONNECT_MS):
        return False
    try:
        if not same_user(socket):
            log.warning("%s is held by another user: not giving it the request", name)
            return False
        socket.write(QByteArray((message.replace("\n", " ") + "\n").encode("utf-8")))
        if not socket.waitForBytesWritten(ANSWER_MS):
            return False
        answer = b""
        while b"\n" not in answer and socket.waitForReadyRead(ANSWER_MS):
            answer += socket.readAll().data()
        return answer.strip() == b"ok"
    finally:
        socket.abort()


def hand_over(name: str | None, message: str, patience_s: float = HAND_OVER_S) -> bool:
    """:func:`send`, asked again while a window listens at ``name`` but is too busy to
    answer (an import holding its event loop), for up to ``patience_s``: a second start then
    gives the open window its files rather than open a window of its own beside it."""
    deadline = time.monotonic() + patience_s
    while not send(name, message):
        if name is None or not _listened(name) or time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def _listened(name: str) -> bool:
    """Whether a window of this user listens at ``name``: the connection is taken (by the
    kernel, while the window's event loop may be held by an import), not only answered. A
    socket file nobody listens on refuses it at once."""
    socket = QLocalSocket()
    socket.connectToServer(name)
    try:
        return socket.waitForConnected(CONNECT_MS) and same_user(socket)
    finally:
        socket.abort()


class SingleInstance(QObject):
    """The running window's end: ``received`` carries each :class:`Request`, on the UI
    thread."""

    received = Signal(object)

    def __init__(self, name: str | None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self._server = QLocalServer(self)
        # Only this user may hand the window a request (the socket file is not
        # world-writable, in a folder no one else can enter).
        self._server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self._server.newConnection.connect(self._accept)
        self._buffers: dict[QLocalSocket, bytes] = {}

    def listen(self) -> bool:
        """Start answering. A socket file nobody answers on (its window crashed or was
        killed) is replaced; False when another window already listens (that one gets the
        requests)."""
        if self.name is None:
            return False
        # Asked first: Qt's listen() binds the name even where a live window listens (its
        # file replaced), so a window too busy to answer a second start lost its socket.
        if _listened(self.name):  # a live window, answering or too busy to: leave it be
            return False
        if self._server.listen(self.name):
            return True
        QLocalServer.removeServer(self.name)
        if self._server.listen(self.name):
            return True
        log.warning("cannot listen for links on %s: %s", self.name, self._server.errorString())
        return False

    @property
    def address(self) -> str:
        """Where it listens: the socket file's path (the pipe's name on Windows)."""
        return self._server.fullServerName()

    def close(self) -> None:
        """Stop listening; the socket file goes with it."""
        self._server.close()

    def _accept(self) -> None:
        while self._server.hasPendingConnections():
            socket = self._server.nextPendingConnection()
            if not same_user(socket):
                log.warning("a request from another user was refused")
                socket.abort()
                socket.deleteLater()
                continue
            self._buffers[socket] = b""
            socket.readyRead.connect(lambda s=socket: self._read(s))
            socket.disconnected.connect(lambda s=socket: self._forget(s))

    def _read(self, socket: QLocalSocket) -> None:
        data = self._buffers.get(socket, b"") + socket.readAll().data()
        if b"\n" not in data:
            self._buffers[socket] = data
            return
        line, _, _rest = data.partition(b"\n")
        self._buffers[socket] = b""
        socket.write(QByteArray(b"ok\n"))
        socket.flush()
        message = line.decode("utf-8", errors="replace").strip()
        if message:  # an empty line only asks whether someone is here
            self.received.emit(Request.decode(message))

    def _forget(self, socket: QLocalSocket) -> None:
        self._buffers.pop(socket, None)
        socket.deleteLater()


class UrlOpenFilter(QObject):
    """macOS hands a clicked ``coursedex://`` link, and a file dropped on the app's icon, to
    the running app as a FileOpen event (the bundle's Info.plist registers the scheme and
    the file types); pass it on like a :class:`Request`."""

    received = Signal(object)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.FileOpen and isinstance(event, QFileOpenEvent):
            url = event.url()
            if url.scheme() == "coursedex":
                self.received.emit(Request(link=url.toString()))
                return True
            if event.file():
                self.received.emit(Request(paths=(event.file(),)))
                return True
        return super().eventFilter(watched, event)
