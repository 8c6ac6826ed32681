"""One `agentcov serve` per state file: an exclusive lock held for the life of the process.

Two services on one state file would each replay and compact the journal the other appends to,
and lose acknowledged data. The lock is `flock` on `<state>.lock` (the state file itself is
replaced on every compaction, so a lock on it would not last); the kernel drops it when the
process dies, so a kill -9 leaves nothing to clean up.
"""

from __future__ import annotations

import errno
import fcntl
import os


def lock_state(state_file: str) -> int:
    """The open, locked descriptor of `<state_file>.lock`; OSError naming the state file and
    the holder's pid when another process has it. A planted symlink is never followed."""
    try:
        fd = os.open(f"{state_file}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC,
                     0o600)
    except OSError as exc:  # name the file the user gave, as every other start error does
        if exc.errno == errno.ELOOP:  # "Too many levels of symbolic links" named neither why
            raise OSError(exc.errno, f"its lock file {state_file}.lock is a symlink: refused "
                          "(a lock is never taken through a link; remove it if it is stale)",
                          state_file) from None
        raise OSError(exc.errno, exc.strerror, state_file) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
        os.close(fd)
        raise OSError(errno.EWOULDBLOCK, f"in use by another agentcov serve (pid {holder})",
                      state_file) from None
    except BaseException:
        os.close(fd)
        raise
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd
