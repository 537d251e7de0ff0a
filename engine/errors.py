"""The one exception family the engine raises. Messages are one line a user can act on."""


class CoursedexError(Exception):
    """Base of every error the engine raises on purpose."""


class UnreadableFileError(CoursedexError):
    """A file cannot be indexed (corrupt, unsupported, empty, unsafe). The import goes on."""


class ModelError(CoursedexError):
    """A model directory is missing, incomplete, corrupt or of the wrong kind."""


class ModelMismatchError(ModelError):
    """A library was built with another model than the one asked for."""


class DownloadError(ModelError):
    """A model download failed or its checksum did not match."""


class LibraryError(CoursedexError):
    """A library folder or database cannot be opened or is not a Coursedex library."""


class LibraryDamagedError(LibraryError):
    """The library's database is damaged, or lost while its search index remains. Restore it
    from a backup, or start over (engine/library/recovery.py): the files it indexed are imported
    again and the damaged files kept."""


class LibraryBusyError(LibraryError):
    """The library cannot be changed now: an import (here or in another process) is
    writing it. Try again when it ends."""


class NotFoundError(CoursedexError):
    """A course, source or segment named by the caller does not exist."""


class OutputExistsError(CoursedexError):
    """An export's target is a file that is there already: replaced only when the user
    said so (``--force``, the save dialog's confirmation)."""


class Cancelled(CoursedexError):
    """Work stopped because the caller set its cancel event."""


class WorkerCrashed(CoursedexError):
    """A child process doing heavy native work (speech recognition) died or misbehaved."""
