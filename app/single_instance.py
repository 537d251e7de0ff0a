"""One window per library: a second ``coursedex`` hands its request to the running one.

The first window listens on a local socket (a named pipe on Windows, a socket file elsewhere)
named after the user and the library folder; ``coursedex open LINK`` (or a click on a
``coursedex://`` link) first tries to give the link to that window, which shows the moment and
comes to the front, and only opens a window of its own when nobody answers. One request is one
UTF-8 line; the window answers ``ok`` once it has taken it.
"""

from __future__ import annotations

import getpass
import hashlib
import logging
from pathlib import Path

from PySide6.QtCore import QByteArray, QEvent, QObject, Signal
from PySide6.QtGui import QFileOpenEvent
from PySide6.QtNetwork import QLocalServer, QLocalSocket

log = logging.getLogger(__name__)
CONNECT_MS = 1500
ANSWER_MS = 3000


def server_name(library: Path) -> str:
    """The socket's name: per user and per library (tests' libraries never meet the user's)."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container): the folder still differs
        user = ""
    key = f"{user}\0{library.resolve()}".encode()
    return f"coursedex-{hashlib.sha256(key).hexdigest()[:16]}"


def send(name: str, message: str) -> bool:
    """Give ``message`` to the window listening on ``name``; False when there is none (or it
    did not take it in time, e.g. it is closing)."""
    socket = QLocalSocket()
    socket.connectToServer(name)
    if not socket.waitForConnected(CONNECT_MS):
        return False
    try:
        socket.write(QByteArray((message.replace("\n", " ") + "\n").encode("utf-8")))
        if not socket.waitForBytesWritten(ANSWER_MS):
            return False
        answer = b""
        while b"\n" not in answer and socket.waitForReadyRead(ANSWER_MS):
            answer += socket.readAll().data()
        return answer.strip() == b"ok"
    finally:
        socket.disconnectFromServer()


class SingleInstance(QObject):
    """The running window's end: ``received`` carries each request, on the UI thread."""

    received = Signal(str)

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self._server = QLocalServer(self)
        # Only this user may hand the window a link (the socket file is not world-writable).
        self._server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self._server.newConnection.connect(self._accept)
        self._buffers: dict[QLocalSocket, bytes] = {}

    def listen(self) -> bool:
        """Start answering. A socket file left by a window that crashed is removed first; False
        when another window already listens (that one gets the requests)."""
        if self._server.listen(self.name):
            return True
        if send(self.name, ""):  # a live window: leave it be
            return False
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
        self._server.close()

    def _accept(self) -> None:
        while self._server.hasPendingConnections():
            socket = self._server.nextPendingConnection()
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
            self.received.emit(message)

    def _forget(self, socket: QLocalSocket) -> None:
        self._buffers.pop(socket, None)
        socket.deleteLater()


class UrlOpenFilter(QObject):
    """macOS hands a clicked ``coursedex://`` link to the running app as a FileOpen event
    (the bundle's Info.plist registers the scheme); pass it on like a request."""

    received = Signal(str)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.FileOpen and isinstance(event, QFileOpenEvent):
            url = event.url()
            if url.scheme() == "coursedex":
                self.received.emit(url.toString())
                return True
        return super().eventFilter(watched, event)
