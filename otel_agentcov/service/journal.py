"""Append-only journal: length + CRC framed records, group-committed with one fsync.

File layout: an 16-byte header (magic, generation) then frames of `>II` (body length, crc32 of
body) + body. The generation ties the journal to the snapshot it follows, so a crash between
writing a snapshot and resetting the journal never applies the same records twice.
"""

from __future__ import annotations

import errno
import os
import stat
import struct
import threading
import zlib
from dataclasses import dataclass

MAGIC = b"AGCOVJ2\n"  # 2: records are classified steps, never request payloads
_HEADER = struct.Struct(">8sQ")
_FRAME = struct.Struct(">II")


class JournalError(ValueError):
    """A journal that cannot be used as is; the message is one line naming the file."""


@dataclass
class ReadResult:
    """What `read_journal` found: the intact records and how the file ended."""

    generation: int
    bodies: list[bytes]
    good_bytes: int  # offset just past the last intact record
    torn_tail: bool  # the last record was cut short (a write interrupted by a crash)
    corrupt: bool  # an intact-looking record failed its CRC with more data after it


def read_journal(path: str, max_record: int) -> ReadResult:
    """Every intact record; stops at the first bad frame and says whether it was a torn tail.
    A symlink or anything but a regular file is not a journal (never followed or read)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        raise JournalError(f"{path}: is a symlink, not a journal") from None
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise JournalError(f"{path}: not a regular file")
        data = fh.read()
    if len(data) < _HEADER.size:
        raise JournalError(f"{path}: journal header is {len(data)} bytes, expected 16")
    magic, generation = _HEADER.unpack_from(data)
    if magic != MAGIC:
        raise JournalError(f"{path}: not an agentcov journal (bad magic {magic[:8]!r})")
    bodies: list[bytes] = []
    offset = _HEADER.size
    end = len(data)
    while offset < end:
        if end - offset < _FRAME.size:
            return ReadResult(generation, bodies, offset, True, False)
        length, crc = _FRAME.unpack_from(data, offset)
        start = offset + _FRAME.size
        if length > max_record:
            return ReadResult(generation, bodies, offset, False, True)
        if start + length > end:
            return ReadResult(generation, bodies, offset, True, False)
        body = data[start : start + length]
        if zlib.crc32(body) != crc:
            torn = start + length == end  # the last write, partly on disk
            return ReadResult(generation, bodies, offset, torn, not torn)
        bodies.append(body)
        offset = start + length
    return ReadResult(generation, bodies, offset, False, False)


def create_journal(path: str, generation: int) -> None:
    """Atomically replace `path` with an empty journal of this generation. The temporary file
    is created exclusively: a leftover (or a planted symlink) is removed, never written through."""
    tmp = f"{path}.tmp"
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        os.write(fd, _HEADER.pack(MAGIC, generation))
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    fsync_dir(path)


def fsync_dir(path: str) -> None:
    """Make a rename in `path`'s directory durable."""
    fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Journal:
    """An open journal for appending. `append` is called in apply order (the caller serializes
    it); `commit` may be called from many threads: one fsync covers every record written so far
    (group commit), and the others wait for it instead of issuing their own."""

    def __init__(self, path: str, truncate_at: int | None = None) -> None:
        self.path = path
        self._fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW)
        if truncate_at is not None:
            os.ftruncate(self._fd, truncate_at)
            os.fsync(self._fd)
        self.size = os.lseek(self._fd, 0, os.SEEK_END)
        self._cond = threading.Condition()
        self._written = 0
        self._durable = 0
        self._syncing = False
        self._failed: OSError | None = None
        self.fsyncs = 0

    def append(self, body: bytes) -> int:
        """Write one record (not yet durable); returns its sequence number for `commit`."""
        frame = _FRAME.pack(len(body), zlib.crc32(body)) + body
        with self._cond:
            if self._failed is not None:
                raise self._failed
            n = os.write(self._fd, frame)
            if n != len(frame):  # disk full: leave no half record behind
                os.ftruncate(self._fd, self.size)
                raise OSError(f"{self.path}: short write ({n} of {len(frame)} bytes)")
            self.size += n
            self._written += 1
            return self._written

    def commit(self, seq: int) -> None:
        """Return once record `seq` (and all before it) is on disk."""
        with self._cond:
            while self._durable < seq:
                if self._failed is not None:
                    raise self._failed
                if self._syncing:
                    self._cond.wait()
                    continue
                self._syncing = True
                target = self._written
                self._cond.release()
                try:
                    os.fsync(self._fd)
                except OSError as exc:
                    failed: OSError | None = exc
                else:
                    failed = None
                finally:
                    self._cond.acquire()
                    self._syncing = False
                    self._cond.notify_all()
                if failed is not None:
                    self._failed = failed  # after a failed fsync the page cache is suspect
                    raise failed
                self.fsyncs += 1
                self._durable = max(self._durable, target)

    def commit_all(self) -> None:
        """Make every record appended so far durable."""
        with self._cond:
            seq = self._written
        self.commit(seq)

    def close(self) -> None:
        with self._cond:
            os.close(self._fd)

