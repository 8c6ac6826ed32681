"""Opening an input file for reading: regular files only, never blocking to find out.

A FIFO blocks `open()` until a writer comes (a CLI that hangs), and a path linked to
`/dev/zero` reads without end; both are refused in one line, as any unreadable input is.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import BinaryIO

_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """`path` opened for binary reading if it is (or links to) a regular file; else OSError
    whose strerror says what it is (callers word it `<path>: cannot read: <strerror>`)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO opens at once, then is refused
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):  # worded as open() words it
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
        if not stat.S_ISREG(mode):
            what = next((name for test, name in _KINDS if test(mode)), "not a file")
            raise OSError(errno.EINVAL, f"{what}, not a regular file (refused: it could block "
                          "or never end)")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
