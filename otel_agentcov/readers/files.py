"""Trace files -> SpanRecords: OTLP/JSON, Collector JSON Lines, OTLP protobuf, gzip, dirs, stdin.

The format is read from the content (gzip magic, then `{`/`[` for JSON, else protobuf), never from
the extension. Memory is bounded by one batch, not the file: JSON Lines go line by line and a
protobuf request is walked field by field (one ResourceSpans, or for a huge one one ScopeSpans or
Span, at a time; "huge" is over CHUNK_LIMIT bytes, or past FILE_CAPS elements). A walked message
reads as the same message decoded whole: its resource or scope is found first, wherever it sits.
A JSON document that is not line-delimited is loaded whole. Every problem is one TraceFormatError
line naming the file and the line or byte offset.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import sys
import tempfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, BinaryIO, Literal, ParamSpec, TypeVar

from .. import compiled
from ..records import SpanRecord
from ..regular_files import open_regular
from ..semconv import Classified
from . import foreign
from .otlp import (
    Ingested,
    Keep,
    StepReader,
    TraceFormatError,
    in_end_order,
    records_from_json,
)
from .otlp_logs import (
    LogItem,
    events_from_json,
    events_from_protobuf,
    is_logs_json,
    is_logs_protobuf,
)
from .otlp_size import TooLarge

STDIN = "-"
# A ResourceSpans or ScopeSpans up to this size is decoded in one call of the compiled core
# (docs/core.md); a bigger one is walked.
CHUNK_LIMIT = 8 << 20
EXPECTED = ("expected OTLP/JSON, JSON Lines or a protobuf ExportTraceServiceRequest "
            "(or ExportLogsServiceRequest)")
# what a file yields: spans (records, or what the core classified) and log records' events
Read = Ingested | LogItem
# What one call of the core may decode, (spans, attributes), at the least (`serve`'s per-request
# defaults), and per byte of the message: a message decoded whole that holds more is walked
# instead, and a single span, resource or scope past them is refused. 2 bytes of protobuf (an
# empty span) decode into ~1 KB of span and record: without them 7 KiB of gzip once grew a run
# to 3.4 GB. A span with its ids takes 28 bytes or more, an attribute 4: what real telemetry
# holds is still decoded whole, as before.
FILE_CAPS = (50_000, 1_000_000)
_BYTES_PER = (32, 4)
_COPY_BLOCK = 1 << 20
_GZIP_MAGIC = b"\x1f\x8b"
_LOGS_HEAD = 8192  # bytes peeked to tell a logs request from a traces one (its first record)
_WHITESPACE = b" \t\r\n"
_BOM = b"\xef\xbb\xbf"
_SNIFF = 256  # bytes looked at to tell JSON from protobuf
_LEN = 2  # protobuf wire type of length-delimited fields
_TOO_DEEP = "JSON nested too deeply to be OTLP traces"
# json.loads refuses an integer of more digits than `sys.get_int_max_str_digits()` (4300)
_TOO_LONG = "a JSON number with more digits than can be read (4300); not OTLP traces"
# A JSON document or JSON line is parsed whole: past this many bytes (after gunzip) it is
# refused instead (a 1 MB .gz once inflated to 2.4 GB of RSS); JSON Lines and protobuf stream.
MAX_JSON_BYTES = 80 << 20  # as `serve --max-decompressed-bytes`
# ... and past this many values (counted from the text, before parsing: every value but the last
# in a container is followed by a comma): 80 KB of gzip holding `[{},{},...]` once parsed into
# 2.15 GB of dicts. Typical OTLP JSON takes ~44 bytes a value, so 80 MiB of it holds ~2 M.
MAX_JSON_VALUES = 4_000_000
_T = TypeVar("_T")
_P = ParamSpec("_P")


def trace_files(paths: Iterable[str]) -> Iterator[str]:
    """Expand directories recursively (sorted, hidden entries skipped); other paths pass through."""
    for path in paths:
        if path != STDIN and os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    if not name.startswith("."):
                        yield os.path.join(root, name)
        else:
            yield path


def read_trace_file(
    path: str, keep: Keep = None, steps: StepReader | None = None
) -> Iterator[Read]:
    """Every span (and decision event, of a log file) in one file (or stdin for `-`), in a
    batch-wise order fit for assembly; with `keep`, only the spans of the traces it keeps.
    With `steps` (`CoverageEngine.steps`), protobuf resources are decoded and classified by
    the core in one call each and their spans come as the engine folds them; the rest come as
    SpanRecords."""
    name = "<stdin>" if path == STDIN else path
    try:
        raw: BinaryIO = sys.stdin.buffer if path == STDIN else open_regular(path)
    except OSError as exc:
        raise TraceFormatError(f"{name}: cannot read: {exc.strerror or exc}") from None
    source = _Source(raw, name, keep, steps, seekable=path != STDIN)
    try:
        yield from _records(source)
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise TraceFormatError(
            f"{name}: corrupt or truncated gzip data after {source.pos} decompressed bytes ({exc})"
        ) from None
    except OSError as exc:
        raise TraceFormatError(f"{name}: cannot read: {exc.strerror or exc}") from None
    finally:
        if path != STDIN:
            raw.close()


def _records(source: _Source) -> Iterator[Read]:
    if source.peek(2).startswith(_GZIP_MAGIC):
        source.stream = io.BufferedReader(gzip.GzipFile(fileobj=source.stream, mode="rb"))
        source.seekable = False  # it could, but only by inflating again from the start
    head = source.peek(_SNIFF)
    if not head:
        raise TraceFormatError(f"{source.name}: empty input; {EXPECTED}")
    if _is_json(head):
        yield from _json_records(source)
    elif is_logs_protobuf(source.peek(_LOGS_HEAD)):
        yield from _protobuf_logs(source)
    else:
        yield from _protobuf_records(source)


def _protobuf_logs(source: _Source) -> list[LogItem]:
    """A protobuf logs request, read whole (as a JSON document is: bounded by MAX_JSON_BYTES)."""
    data: bytes = source.stream.read(MAX_JSON_BYTES + 1)
    if len(data) > MAX_JSON_BYTES:
        raise _too_big(source, "the logs request")
    return events_from_protobuf(data, source.name, source.keep)


def _is_json(head: bytes) -> bool:
    """Whether input starting with `head` is JSON: text opening with `{` or `[` (after a BOM and
    whitespace), unless it is a protobuf request by its structure. A request opens with a
    newline (the tag of field 1), and a first ResourceSpans of 91 or 123 bytes puts `[` or `{`
    next (a length past 127 takes a byte past ASCII): such input is protobuf when that
    ResourceSpans, all in `head`, walks as one."""
    text = head.removeprefix(_BOM).lstrip(_WHITESPACE)
    if text and text[:1] not in (b"{", b"["):
        return False
    if head[:1] != b"\n":
        return True
    n, pos = _varint(head, 1)
    return n is None or pos + n > len(head) or not _walks(head, pos, pos + n, 1)


def _walks(data: bytes, pos: int, end: int, depth: int) -> bool:
    """Whether data[pos:end] is a sequence of protobuf fields ending exactly at `end`, the
    values of fields 1 and 2 (messages in a ResourceSpans) walking too, `depth` levels down."""
    while pos < end:
        tag, pos = _varint(data, pos)
        if tag is None or tag >> 3 == 0 or tag & 7 > 5:
            return False
        wire = tag & 7
        if wire == 0:
            value, pos = _varint(data, pos)
            if value is None:
                return False
        elif wire == _LEN:
            n, pos = _varint(data, pos)
            if n is None or pos + n > end:
                return False
            if depth > 0 and tag >> 3 in (1, 2) and not _walks(data, pos, pos + n, depth - 1):
                return False
            pos += n
        elif wire in (1, 5):
            pos += 8 if wire == 1 else 4
    return pos == end


def _varint(data: bytes, pos: int) -> tuple[int | None, int]:
    value = shift = 0
    for i in range(pos, min(pos + 10, len(data))):
        value |= (data[i] & 0x7F) << shift
        if data[i] < 0x80:
            return value, i + 1
        shift += 7
    return None, pos


def _batch(records: Iterable[SpanRecord], where: str) -> list[SpanRecord]:
    """One batch in end-time order (roots last), so a root listed before its children still
    closes its run; errors inside the batch get the file and line/offset prefix."""
    try:
        return in_end_order(records)
    except TraceFormatError as exc:
        raise TraceFormatError(f"{where}: {exc}") from None


class _Source:
    """A binary stream with its byte offset, for protobuf walking and error messages."""

    def __init__(
        self, stream: BinaryIO, name: str, keep: Keep = None, steps: StepReader | None = None,
        *, base: int = 0, seekable: bool = False,
    ) -> None:
        self.stream: Any = stream  # a BufferedReader: it can peek
        self.name = name
        self.pos = base  # offsets are the file's: `base` is that of the stream's first byte
        self.base = base
        self.seekable = seekable  # a plain file, or bytes already read: walked in two passes
        self.keep = keep
        self.steps = steps

    def seek(self, pos: int) -> None:
        self.stream.seek(pos - self.base)
        self.pos = pos

    def peek(self, n: int) -> bytes:
        data: bytes = self.stream.peek(n)
        return data[:n]

    def error(self, at: int, what: str) -> TraceFormatError:
        return TraceFormatError(f"{self.name}: byte {at}: {what}")

    def read(self, n: int, what: str) -> bytes:
        data: bytes = self.stream.read(n)
        if len(data) < n:
            raise self.error(self.pos, f"truncated: expected {n} bytes of {what}, got {len(data)}")
        self.pos += n
        return data

    def varint(self, what: str, eof_ok: bool = False) -> int | None:
        result = shift = 0
        at = self.pos
        read = self.stream.read
        while True:
            b = read(1)
            if not b:
                if eof_ok and shift == 0:
                    return None
                raise self.error(at, f"truncated: expected a varint ({what})")
            self.pos += 1
            byte: int = b[0]
            result |= (byte & 0x7F) << shift
            if byte < 0x80:
                return result
            shift += 7
            if shift >= 64:
                raise self.error(at, f"malformed varint ({what}); {EXPECTED}")

    def length(self, end: int | None, what: str) -> int:
        at = self.pos
        n = self.varint(what + " length")
        assert n is not None
        if end is not None and self.pos + n > end:
            raise self.error(at, f"{what} of {n} bytes runs past its enclosing message")
        return n

    def skip(self, wire: int, end: int | None, at: int) -> None:
        """Skip an unknown field, as protobuf parsers do (forward compatibility)."""
        if wire == 0:
            self.varint("field value")
        elif wire in (1, 5):
            self.read(8 if wire == 1 else 4, "fixed-width field")
        elif wire == _LEN:
            n = self.length(end, "field")
            if self.seekable and end is not None:  # in a region, which holds its bytes
                self.seek(self.pos + n)
            else:
                self.read(n, "field")
        else:
            raise self.error(at, f"invalid protobuf wire type {wire}; {EXPECTED}")


# ---------------------------------------------------------------- JSON and JSON Lines


def _decode(line: bytes, source: _Source, line_no: int, start: int) -> str:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TraceFormatError(
            f"{source.name}: line {line_no} (byte {start + exc.start}): not UTF-8 text; {EXPECTED}"
        ) from None


def _json_batches(doc: Any, where: str, keep: Keep) -> Iterator[list[SpanRecord] | list[LogItem]]:
    """One batch per OTLP/JSON traces (or logs) object; a list of them is accepted too, and so
    are Tempo, Jaeger and Zipkin documents (`foreign`)."""
    if foreign.kind_of(doc) is not None:
        yield _batch(foreign.records(doc, keep), where)
        return
    docs = doc if isinstance(doc, list) else [doc]
    for n, item in enumerate(docs):
        at = f"{where}: [{n}]" if isinstance(doc, list) else where
        if is_logs_json(item):
            yield _events(item, at, keep)
            continue
        if not isinstance(item, dict) or not ("resourceSpans" in item or "resource_spans" in item):
            got = (f"an object with keys {', '.join(list(item)[:5]) or '(none)'}"
                   if isinstance(item, dict) else type(item).__name__)
            raise TraceFormatError(
                f"{at}: expected an OTLP/JSON object with 'resourceSpans' (or Tempo 'batches', "
                f"Jaeger 'data', a Zipkin v2 span list), got {got}"
            )
        yield _batch(records_from_json(item, "", keep), at)


def _events(document: Any, where: str, keep: Keep) -> list[LogItem]:
    try:
        return list(events_from_json(document, "", keep))
    except TraceFormatError as exc:
        raise TraceFormatError(f"{where}: {exc}") from None


def _json_records(source: _Source) -> Iterator[SpanRecord | LogItem]:
    """JSON Lines (the Collector's file exporter) line by line; else one document, loaded whole."""
    stream, name = source.stream, source.name
    line_no = offset = 0
    before: list[str] = []  # blank lines ahead of the first value, kept for line numbers
    lines_mode = False
    while raw_line := stream.readline(MAX_JSON_BYTES + 1):
        if len(raw_line) > MAX_JSON_BYTES:
            raise _too_big(source, f"line {line_no + 1}")
        line_no += 1
        start, offset = offset, offset + len(raw_line)
        text = _decode(raw_line, source, line_no, start)
        if line_no == 1:
            text = text.removeprefix("\ufeff")
        if not text.strip():
            if not lines_mode:
                before.append(text)
            continue
        _countable(source, text, f"line {line_no}")
        try:
            doc = json.loads(text)
        except RecursionError:
            raise TraceFormatError(f"{name}: line {line_no}: {_TOO_DEEP}") from None
        except json.JSONDecodeError as exc:
            if lines_mode:
                raise TraceFormatError(
                    f"{name}: line {line_no} column {exc.colno}: not valid JSON ({exc.msg}); "
                    "expected one OTLP/JSON object per line"
                ) from None
            yield from _json_document(source, "".join(before) + text, offset)
            return
        except ValueError:  # not a JSONDecodeError: an integer past int's digit limit
            raise TraceFormatError(f"{name}: line {line_no}: {_TOO_LONG}") from None
        lines_mode = True
        for batch in _json_batches(doc, f"{name}: line {line_no}", source.keep):
            yield from batch


def _too_big(source: _Source, what: str, size: str = "") -> TraceFormatError:
    return TraceFormatError(
        f"{source.name}: {what} is over {size or f'{MAX_JSON_BYTES >> 20} MiB'} of JSON (after "
        "gunzip) and is not read whole; write JSON Lines (one OTLP/JSON object per line) or "
        "protobuf")


def _countable(source: _Source, text: str, what: str) -> None:
    """Refuse JSON text of more than MAX_JSON_VALUES values before parsing it (a bound from
    the text: commas, braces and brackets in strings count too, erring on refusing)."""
    if text.count(",") + text.count("{") + text.count("[") >= MAX_JSON_VALUES:
        raise _too_big(source, what, f"{MAX_JSON_VALUES:,} values")


def _json_document(source: _Source, head: str, offset: int) -> Iterator[SpanRecord | LogItem]:
    rest: bytes = source.stream.read(MAX_JSON_BYTES + 1 - len(head))
    if len(rest) + len(head) > MAX_JSON_BYTES:
        raise _too_big(source, "the document")
    try:
        text = head + rest.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TraceFormatError(
            f"{source.name}: byte {offset + exc.start}: not UTF-8 text; {EXPECTED}"
        ) from None
    _countable(source, text, "the document")
    try:
        doc = json.loads(text)
    except RecursionError:
        raise TraceFormatError(f"{source.name}: {_TOO_DEEP}") from None
    except json.JSONDecodeError as exc:
        raise TraceFormatError(
            f"{source.name}: line {exc.lineno} column {exc.colno}: not valid JSON ({exc.msg}); "
            f"{EXPECTED}"
        ) from None
    except ValueError:
        raise TraceFormatError(f"{source.name}: {_TOO_LONG}") from None
    for batch in _json_batches(doc, source.name, source.keep):
        yield from batch


# ---------------------------------------------------------------- protobuf


class _PastCaps(TraceFormatError):
    """A message past FILE_CAPS: walked when it has parts, else refused as this line."""


def _decoded(
    source: _Source, at: int, decode: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs
) -> _T:
    """One call of the compiled decoder; its error gets the file and field offset prefix."""
    try:
        return decode(*args, **kwargs)
    except TraceFormatError as exc:
        raise source.error(at, str(exc)) from None
    except TooLarge as exc:
        raise _PastCaps(f"{source.name}: byte {at}: {exc} in one element; not read") from None


def _protobuf_records(source: _Source) -> Iterator[Ingested]:
    """A single ExportTraceServiceRequest (or TracesData), else a length-delimited stream."""
    if source.peek(1) == b"\n":  # tag of field 1 (resource_spans), length-delimited
        yield from _request(source, None)
        return
    while True:
        at = source.pos
        n = source.varint("message length", eof_ok=True)
        if n is None:
            return
        if n and source.peek(1) != b"\n":
            raise source.error(at, f"not OTLP traces; {EXPECTED} (or a length-delimited stream)")
        yield from _request(source, source.pos + n)


def _fields(source: _Source, end: int | None) -> Iterator[tuple[int, int, int]]:
    """(field number, wire type, offset) of each field up to `end` (None: end of input)."""
    while end is None or source.pos < end:
        at = source.pos
        tag = source.varint("field tag", eof_ok=end is None)
        if tag is None:
            return
        yield tag >> 3, tag & 7, at
    if source.pos != end:
        raise source.error(source.pos, "a field runs past its enclosing message")


def _request(source: _Source, end: int | None) -> Iterator[Ingested]:
    r = 0
    for field, wire, at in _fields(source, end):
        if field == 1 and wire == _LEN:
            n = source.length(end, "resource_spans")
            yield from _resource_spans(source, n, at, r)
            r += 1
        else:
            source.skip(wire, end, at)


def _whole(
    source: _Source, data: bytes, at: int, level: Literal["resource_spans", "scope_spans"],
    index: tuple[int, int], resource: dict[str, Any] | None = None,
) -> list[SpanRecord] | list[Classified] | None:
    """A message's spans decoded in one call, in end order; None past its caps (walk it)."""
    offset = source.pos - len(data)
    caps = (max(FILE_CAPS[0], len(data) // _BYTES_PER[0]),
            max(FILE_CAPS[1], len(data) // _BYTES_PER[1]))
    try:
        if source.steps is not None and level == "resource_spans":
            return _decoded(source, at, source.steps, data, level, offset=offset,
                            resource_index=index[0], keep=source.keep, caps=caps)
        return in_end_order(_decoded(
            source, at, compiled.otlp_spans, data, level, offset=offset, resource_index=index[0],
            scope_index=index[1], keep=source.keep, resource=resource, caps=caps))
    except _PastCaps:
        return None


@contextmanager
def _region(source: _Source, n: int, data: bytes | None) -> Iterator[_Source]:
    """The `n` bytes of a message, which end at `source.pos` if `data` holds them (already
    read) and else start there, as a source that can seek, with the file's offsets: those
    bytes, the file itself, or else (gzip, stdin) a copy in a temporary file. A walk reads its
    message twice, its resource or scope first, wherever they sit (a decoder reading it whole
    applies them to every span)."""
    if data is not None:
        yield _Source(io.BytesIO(data), source.name, source.keep, source.steps,
                      base=source.pos - n, seekable=True)
    elif source.seekable:
        if source.pos + n > os.fstat(source.stream.fileno()).st_size:
            raise source.error(source.pos, f"truncated: expected {n} bytes of a message")
        yield source
    else:
        with tempfile.TemporaryFile(prefix="agentcov-") as spool:
            start = source.pos
            while source.pos < start + n:
                spool.write(source.read(min(_COPY_BLOCK, start + n - source.pos), "a message"))
            spool.seek(0)
            yield _Source(spool, source.name, source.keep, source.steps, base=start,
                          seekable=True)


def _head(region: _Source, end: int, head: int, what: str) -> tuple[bytes, int, int]:
    """First pass over a message: its field `head` (a resource, a scope) as one message (a
    field given twice is merged, as protobuf merges it: concatenated), with the offsets of the
    first one's tag and bytes; the region is left at the message's start."""
    start = field_at = data_at = region.pos
    parts: list[bytes] = []
    for field, wire, at in _fields(region, end):
        if field == head and wire == _LEN:
            n = region.length(end, what)
            if not parts:
                field_at, data_at = at, region.pos
            parts.append(region.read(n, what))
        else:
            region.skip(wire, end, at)
    region.seek(start)
    return b"".join(parts), field_at, data_at


def _resource_spans(source: _Source, n: int, at: int, r: int) -> Iterator[Ingested]:
    data = source.read(n, "ResourceSpans") if n <= CHUNK_LIMIT else None
    batch = None if data is None else _whole(source, data, at, "resource_spans", (r, 0))
    if batch is not None:
        yield from batch
        return
    with _region(source, n, data) as region:
        end = region.pos + n
        head, h_at, offset = _head(region, end, 1, "resource")
        resource: dict[str, Any] = _decoded(region, h_at, compiled.otlp_resource, head,
                                            offset=offset, caps=FILE_CAPS) if head else {}
        s = 0
        for field, wire, f_at in _fields(region, end):
            if field == 2 and wire == _LEN:
                size = region.length(end, "scope_spans")
                yield from _scope_spans(region, size, f_at, resource, (r, s))
                s += 1
            else:
                region.skip(wire, end, f_at)


def _scope_spans(
    source: _Source, n: int, at: int, resource: dict[str, Any], index: tuple[int, int]
) -> Iterator[Ingested]:
    data = source.read(n, "ScopeSpans") if n <= CHUNK_LIMIT else None
    batch = None if data is None else _whole(source, data, at, "scope_spans", index, resource)
    if batch is not None:
        yield from batch
        return
    with _region(source, n, data) as region:
        end = region.pos + n
        head, h_at, offset = _head(region, end, 1, "scope")
        scope_name = _decoded(region, h_at, compiled.otlp_scope_name, head, offset=offset,
                              caps=FILE_CAPS) if head else ""
        i = 0
        for field, wire, f_at in _fields(region, end):
            if field == 2 and wire == _LEN:
                span = region.read(region.length(end, "span"), "span")
                yield from _decoded(
                    region, f_at, compiled.otlp_spans, span, "span", offset=region.pos - len(span),
                    resource_index=index[0], scope_index=index[1], span_index=i,
                    keep=region.keep, resource=resource, scope_name=scope_name, caps=FILE_CAPS)
                i += 1
            else:
                region.skip(wire, end, f_at)


# ---------------------------------------------------------------- shares of a file (`--jobs`)


@dataclass(frozen=True)
class Unit:
    """One ResourceSpans of a protobuf file that is one request: its index in the request, the
    offset of its field (errors name it, as a whole read does) and where its bytes are."""

    path: str
    index: int
    at: int
    start: int
    size: int


def resource_spans_units(path: str) -> list[Unit] | None:
    """The ResourceSpans of a plain (not gzip) protobuf file holding one request, found by
    reading the request's field headers only; None when the file is anything else or does not
    walk cleanly (then it is read whole, and the reader names the problem)."""
    try:
        with open_regular(path) as raw:
            source = _Source(raw, path)
            head = source.peek(_SNIFF)
            if head[:1] != b"\n" or _is_json(head):
                return None  # JSON, gzip, a length-delimited stream, empty: as `_records` says
            if is_logs_protobuf(source.peek(_LOGS_HEAD)):
                return None  # a logs request: read whole
            units: list[Unit] = []
            size = os.fstat(raw.fileno()).st_size
            for field, wire, at in _fields(source, None):
                if field == 1 and wire == _LEN:
                    n = source.length(None, "resource_spans")
                    if source.pos + n > size:
                        return None
                    units.append(Unit(path, len(units), at, source.pos, n))
                    source.pos += n
                    raw.seek(source.pos)
                else:
                    source.skip(wire, None, at)
            return units
    except (OSError, TraceFormatError):
        return None


def _at_units(
    units: Iterable[Unit], keep: Keep, steps: StepReader | None = None
) -> Iterator[tuple[_Source, Unit]]:
    """Each unit with a source positioned at its bytes (one open file at a time)."""
    path, raw, source = None, None, None
    try:
        for unit in units:
            if unit.path != path:
                if raw is not None:
                    raw.close()
                path, raw = unit.path, open_regular(unit.path)
                source = _Source(raw, unit.path, keep, steps, seekable=True)
            assert raw is not None and source is not None
            raw.seek(unit.start)
            source.pos = unit.start
            yield source, unit
    finally:
        if raw is not None:
            raw.close()


def unit_bytes(units: Iterable[Unit]) -> Iterator[bytes]:
    """The serialized ResourceSpans of each unit."""
    for source, unit in _at_units(units, None):
        yield source.read(unit.size, "resource_spans")


def read_units(
    units: Iterable[Unit], keep: Keep = None, steps: StepReader | None = None
) -> Iterator[Ingested]:
    """The spans of these units (those of the traces `keep` keeps), as reading their files
    whole gives them (with `steps`, as `read_trace_file` does), and with the same error
    messages."""
    for source, unit in _at_units(units, keep, steps):
        yield from _resource_spans(source, unit.size, unit.at, unit.index)
