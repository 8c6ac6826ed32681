"""Trace JSON from the stores users keep traces in: Grafana Tempo (`{"batches": [...]}`, OTLP
inside), Jaeger's JSON (`{"data": [{"spans", "processes"}]}`, as its UI downloads and its query
API answers) and Zipkin v2 (a list of spans). Each is told from its content and read into the
same SpanRecords as the OTLP file of the same spans (docs/cli.md#trace-files).

What the formats lost cannot come back: Zipkin keeps every attribute as a string (whole numbers
and booleans are read back from their text, arrays of scalars from their JSON; decimals stay
text) and merges resource attributes into the tags; both keep times in microseconds.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from ..records import STATUS_ERROR, STATUS_OK, STATUS_UNSET, SpanRecord
from .errors import TraceFormatError
from .otlp import Keep, records_from_json

_KINDS = {"server": 1, "client": 2, "producer": 3, "consumer": 4}  # SDK SpanKind; else internal
_STATUS = {"OK": STATUS_OK, "ERROR": STATUS_ERROR}
_SCOPE_KEYS = ("otel.scope.name", "otel.library.name")
# tags the exporters add for what OTLP keeps in fields of its own
_SPECIAL = frozenset({"otel.scope.name", "otel.scope.version", "otel.library.name",
                      "otel.library.version", "otel.status_code", "otel.status_description",
                      "error", "span.kind", "internal.span.format"})
_INTEGER = re.compile(r"-?(0|[1-9][0-9]{0,17})")
_HEX = re.compile(r"[0-9a-fA-F]+")


def kind_of(doc: Any) -> str | None:
    """"tempo", "jaeger" or "zipkin" when a parsed JSON document is one of them, else None."""
    if isinstance(doc, dict):
        if isinstance(doc.get("batches"), list):
            return "tempo"
        data = doc.get("data")
        if isinstance(data, list) and all(isinstance(t, dict) and "spans" in t for t in data):
            return "jaeger"
    if isinstance(doc, list) and doc and all(
        isinstance(s, dict) and "traceId" in s and "id" in s for s in doc
    ):
        return "zipkin"
    return None


def records(doc: Any, keep: Keep = None) -> Iterator[SpanRecord]:
    """Every span of a Tempo, Jaeger or Zipkin document (`kind_of` said which). Errors name
    the place inside the document; the caller puts the file and line in front."""
    kind = kind_of(doc)
    if kind == "tempo":
        yield from records_from_json({"resourceSpans": doc["batches"]}, "", keep)
    elif kind == "jaeger":
        for t, trace in enumerate(doc["data"]):
            processes = _of(trace.get("processes"), dict, f"data[{t}].processes")
            for i, span in enumerate(_of(trace["spans"], list, f"data[{t}].spans")):
                record = _jaeger(span, processes, f"data[{t}].spans[{i}]")
                if keep is None or keep(record.trace_id):
                    yield record
    elif kind == "zipkin":
        for i, span in enumerate(doc):
            record = _zipkin(span, f"[{i}]")
            if keep is None or keep(record.trace_id):
                yield record


def _id(value: Any, where: str, digits: int = 32) -> int:
    """A hex id of at most `digits` digits. Only hex digits: `int(_, 16)` would also take a
    `0x` prefix, a sign, spaces and underscores, and read different ids as one."""
    if isinstance(value, str) and _HEX.fullmatch(value) and len(value) <= digits:
        return int(value, 16)
    raise TraceFormatError(f"{where}: expected a hex id of at most {digits} digits, got "
                           f"{str(value)[:40]!r}")


def _of(value: Any, kind: type[dict[str, Any]] | type[list[Any]], where: str) -> Any:
    """`value` if it is a `kind` (a JSON object or array), an absent or empty value as an empty
    one; anything else is a one-line error naming the place (not a TypeError's traceback)."""
    if not value:
        return kind()
    if not isinstance(value, kind):
        raise TraceFormatError(f"{where}: expected {'an object' if kind is dict else 'a list'}, "
                               f"got {type(value).__name__}")
    return value


def _micros(value: Any, where: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value * 1000
    raise TraceFormatError(f"{where}: expected microseconds (a whole number), got "
                           f"{str(value)[:40]!r}")


def _status(tags: Mapping[str, Any]) -> tuple[int, str | None]:
    code = _STATUS.get(str(tags.get("otel.status_code", "")).upper(), STATUS_UNSET)
    error = tags.get("error")
    if code == STATUS_UNSET and error not in (None, False, "false"):
        code = STATUS_ERROR
    described = tags.get("otel.status_description") or (error if isinstance(error, str) else "")
    return code, (str(described) or None) if code == STATUS_ERROR else None


def _record(trace: int, span: int, parent: int | None, name: str, start: int, duration: int,
            tags: Mapping[str, Any], kind: int, resource: Mapping[str, Any],
            events: tuple[tuple[str, Mapping[str, Any]], ...]) -> SpanRecord:
    code, description = _status(tags)
    scope = next((str(tags[k]) for k in _SCOPE_KEYS if tags.get(k)), "")
    return SpanRecord(
        trace_id=trace, span_id=span, parent_id=parent, name=name, kind=kind,
        start_ns=start, end_ns=start + duration, status_code=code,
        status_description=description,
        attributes={k: v for k, v in tags.items() if k not in _SPECIAL},
        events=events, scope_name=scope, resource_attributes=resource,
    )


# ---------------------------------------------------------------- Jaeger


def _array(text: str) -> Any:
    """An array attribute back from the JSON text both exporters write for it (a list of
    scalars); any other text, JSON arrays of objects included (message lists), stays text."""
    if not text.startswith("["):
        return text
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return text
    if isinstance(value, list) and all(
        v is None or isinstance(v, str | int | float | bool) for v in value
    ):
        return tuple(value)
    return text


def _jaeger_value(tag: Mapping[str, Any]) -> Any:
    value, kind = tag.get("value"), str(tag.get("type", "string")).lower()
    if kind in ("int64", "float64", "bool"):
        return value
    return _array(str(value))


def _jaeger_tags(tags: Any, where: str) -> dict[str, Any]:
    return {str(t["key"]): _jaeger_value(t) for t in _of(tags, list, where)
            if isinstance(t, dict) and "key" in t}


def _jaeger(span: Any, processes: Mapping[str, Any], where: str) -> SpanRecord:
    if not isinstance(span, dict):
        raise TraceFormatError(f"{where}: expected a Jaeger span object")
    trace = _id(span.get("traceID"), where + ".traceID")
    references = _of(span.get("references"), list, where + ".references")
    parent = next((_id(r.get("spanID"), where + ".references", 16) for r in references
                   if isinstance(r, dict) and r.get("refType") == "CHILD_OF"
                   and _id(r.get("traceID"), where + ".references") == trace), None)
    parent = parent if parent is not None else (
        _id(span["parentSpanID"], where, 16) if span.get("parentSpanID") not in (None, "", "0")
        else None)
    process = _of(processes.get(str(span.get("processID"))) or span.get("process"), dict,
                  where + ".process")
    resource = {"service.name": str(process.get("serviceName", "")),
                **_jaeger_tags(process.get("tags"), where + ".process.tags")}
    tags = _jaeger_tags(span.get("tags"), where + ".tags")
    logs = _of(span.get("logs"), list, where + ".logs")
    events = tuple(
        (str(fields.pop("event", "")), fields)
        for fields in (_jaeger_tags(log.get("fields"), where + ".logs.fields") for log in logs
                       if isinstance(log, dict))
    )
    return _record(trace, _id(span.get("spanID"), where + ".spanID", 16), parent,
                   str(span.get("operationName", "")),
                   _micros(span.get("startTime"), where + ".startTime"),
                   _micros(span.get("duration"), where + ".duration"), tags,
                   _KINDS.get(str(tags.get("span.kind", "")).lower(), 0), resource, events)


# ---------------------------------------------------------------- Zipkin v2


def _zipkin_value(text: str) -> Any:
    """A tag's typed value back from its text: whole numbers (token counts) and booleans; a
    decimal stays text, as "1.0" may be a version string rather than a number."""
    if text in ("true", "false"):
        return text == "true"
    if _INTEGER.fullmatch(text):
        return int(text)
    return _array(text)


def _zipkin(span: Any, where: str) -> SpanRecord:
    if not isinstance(span, dict):
        raise TraceFormatError(f"{where}: expected a Zipkin span object")
    raw = span.get("tags") or {}
    if not isinstance(raw, dict):
        raise TraceFormatError(f"{where}.tags: expected an object of strings")
    tags = {str(k): _zipkin_value(str(v)) for k, v in raw.items()}
    tags["error"] = raw["error"] if "error" in raw else None  # a message, kept as text
    endpoint = _of(span.get("localEndpoint"), dict, where + ".localEndpoint")
    resource = {"service.name": str(endpoint.get("serviceName", ""))}
    events = []
    for a in _of(span.get("annotations"), list, where + ".annotations"):
        try:
            value = json.loads(a["value"])
        except (TypeError, KeyError, ValueError, RecursionError):
            continue
        if isinstance(value, dict) and len(value) == 1:  # OTel's {name: attributes}
            ((name, attrs),) = value.items()
            events.append((str(name), attrs if isinstance(attrs, dict) else {}))
    parent = span.get("parentId")
    return _record(
        _id(span.get("traceId"), where + ".traceId"), _id(span.get("id"), where + ".id", 16),
        _id(parent, where + ".parentId", 16) if parent else None, str(span.get("name") or ""),
        _micros(span.get("timestamp"), where + ".timestamp"),
        _micros(span.get("duration", 0), where + ".duration"),
        {k: v for k, v in tags.items() if v is not None},
        _KINDS.get(str(span.get("kind") or "").lower(), 0), resource, tuple(events),
    )
