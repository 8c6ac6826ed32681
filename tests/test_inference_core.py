"""Inference's string readers in the core (core/src/inference.rs) equal their Python twin
(tests/_inference_oracle.py): on every string of the recorded corpus (span names, attribute keys
and values, event names, anything a fixture holds) and on generated strings (any unicode, lone
surrogates, separators, brackets, kind words glued in every case, long strings)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

import _inference_oracle as oracle
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from otel_agentcov import compiled
from otel_agentcov.records import SpanRecord
from otel_agentcov.semconv import inference
from otel_agentcov.semconv.common import clip

ROOT = Path(__file__).resolve().parent
# every directory of recorded traces: the fixtures, the held-out sets, the tuning share, the
# negative set, and any other test data holding OTLP JSON
_SKIP = {"golden"}


def _strings(value: Any, lists: list[list[Any]]) -> Iterator[str]:
    """Every string in a parsed JSON document, keys included; lists of values (tags) to `lists`."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item, lists)
        array = value.get("arrayValue")
        if isinstance(array, dict) and isinstance(array.get("values"), list):
            lists.append([next(iter(v.values()), None) if isinstance(v, dict) and v else None
                          for v in array["values"]])
    elif isinstance(value, list):
        if value and all(isinstance(v, str) for v in value):
            lists.append(value)
        for item in value:
            yield from _strings(item, lists)


def _documents(path: Path) -> Iterator[Any]:
    text = path.read_text("utf-8", "surrogatepass")
    try:
        yield json.loads(text)
    except ValueError:
        for line in text.splitlines():
            try:
                yield json.loads(line)
            except ValueError:
                continue


@cache
def corpus() -> tuple[tuple[str, ...], tuple[tuple[Any, ...], ...]]:
    """(every distinct string, every distinct list) of the recorded corpus under tests/."""
    found: dict[str, None] = {}
    lists: list[list[Any]] = []
    for path in sorted(ROOT.rglob("*.json*")):
        if _SKIP & set(path.relative_to(ROOT).parts) or not path.is_file():
            continue
        for document in _documents(path):
            found.update(dict.fromkeys(_strings(document, lists)))
    distinct = {tuple(v): None for v in lists if len(v) <= 64}
    return tuple(found), tuple(distinct)


# (the package's reader, its oracle): each reads one string, or one value
READERS: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {
    "words": (inference.words, oracle.words),
    "_norm": (compiled.norm, oracle._norm),
    "_kind_key": (compiled.kind_key, oracle._kind_key),
    "tag_key": (inference.tag_key, oracle.tag_key),
    "_kind_word": (compiled.kind_word, oracle._kind_word),
    "_affix_kind": (compiled.affix_kind, oracle._affix_kind),
    "_usage_key": (compiled.usage_key, oracle._usage_key),
    "_provider": (compiled.provider, oracle._provider),
    "name_affix": (inference.name_affix, oracle.name_affix),
    "model_in_name": (compiled.model_in_name, lambda name: (
        None if (m := oracle._MODEL_NAME.match(name)) is None else (m.group(1), m.group(2)))),
    # the package read a name through `_short_cached`, a lone surrogate as `?`: a name that is
    # its affix whole (`llm_call\udc80ainvoke`) is pinned as that text
    "span_affix": (compiled.span_affix, lambda name: oracle.span_affix(oracle._lossy(name), False)),
    "span_affix http": (lambda name: compiled.span_affix(name, True),
                        lambda name: oracle.span_affix(oracle._lossy(name), True)),
    "lifecycle_stem": (compiled.lifecycle_stem, oracle.lifecycle_stem),
    "go_function": (inference.go_function, oracle.go_function),
    "glob_literal": (inference.glob_literal, oracle.glob_literal),
    # Python's raised on a lone surrogate (RE2 encodes the name strictly); the core reads it as
    # `?`, as every other reader does
    "_tool_prefixed": (compiled.tool_prefixed, lambda name: oracle._tool_prefixed(
        name.encode("utf-8", "replace").decode("utf-8"))),
    "agent_name_ok": (inference.agent_name_ok, oracle.agent_name_ok),
    # its callers hand it a clipped name (encodable: no lone surrogate)
    "_last_crumb": (lambda name: inference._last_crumb(clip(name)),
                    lambda name: oracle._last_crumb(clip(name))),
    "_code_path": (compiled.code_path, oracle._code_path),
}


def _differences(texts: Any) -> list[tuple[str, str, Any, Any]]:
    return [(name, text, core(text), python(text))
            for text in texts for name, (core, python) in READERS.items()
            if core(text) != python(text)]


def test_the_corpus_is_large() -> None:
    """The corpus holds the fixtures' strings (a glob that found nothing would pass anything)."""
    texts, lists = corpus()
    assert len(texts) > 20_000 and len(lists) > 100


def test_every_corpus_string_reads_alike() -> None:
    texts, _ = corpus()
    assert _differences(texts) == []


def test_every_corpus_list_reads_alike() -> None:
    _, lists = corpus()
    tagged = [(v, compiled.tag_kind(list(v)), oracle._tag_kind(list(v))) for v in lists]
    assert [t for t in tagged if t[1] != t[2]] == []
    # the tag is the value's own (a tuple value too)
    assert [v for v in lists if compiled.tag_kind(v) != oracle._tag_kind(v)] == []


_KIND = st.sampled_from(sorted({*inference.KIND_WORDS, *inference.RUN_WORDS, "span", "data",
                                 "type", "kind", "tags", "tokens", "input", "openai", "0", "1",
                                 "execution", "running", "gen_ai", "github.com", "acme", "(*Agent)",
                                 "Run", "null", "nİl", "start", "on_end", "chunk", "ChatModel",
                                 "ReportGenerator", "generate", "transfer", "OpenRouter", "send",
                                 "Calling", "init", "_run", "POST", "GET", "–", "|", " > "}))
_CASED = st.tuples(_KIND, st.sampled_from((str.lower, str.upper, str.title, str.capitalize))
                   ).map(lambda t: t[1](t[0]))
_SEPARATOR = st.sampled_from(("", ".", "_", "-", ":", "::", " ", "/", "\u3000", "\x1c", "\n",
                              "()", "[", "]", "(", ")", "<", ">", "'", '"', "{", "}", "\udc80",
                              "١", "²", "İ", "K", "ǅ", "\u0301", "ſ"))
_GLUED = st.lists(st.one_of(_CASED, _SEPARATOR, st.text(max_size=4)), max_size=10).map("".join)
_TEXT = st.one_of(_GLUED, st.text(), st.text(alphabet=st.characters(codec=None), max_size=80),
                  _GLUED.map(lambda t: t * 30))


@settings(max_examples=1500, deadline=None)
@given(_TEXT)
def test_generated_strings_read_alike(text: str) -> None:
    assert _differences([text]) == []


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_TEXT, _GLUED.map(lambda t: t + ".run()"), st.integers(), st.none()),
                max_size=20))
def test_generated_tags_read_alike(tags: list[Any]) -> None:
    assert compiled.tag_kind(tags) == oracle._tag_kind(tags)
    assert compiled.tag_kind(tuple(tags)) == oracle._tag_kind(tuple(tags))


def test_names_read_alike() -> None:
    """Names of each shape the readers tell apart (the docstrings' examples)."""
    names = ["weather.agent", "tool_call.get_time", "execute_tool lookup", "search_tool",
             "github.com/acme/kit/agent.Run", "pkg.(*Agent).Run", "agent.(*Agent).Run",
             "github.com/acme/kit/agent.(*Agent).Run", "api.openai.com/v1/chat.completions",
             "Agent.run()", "ChatDriver.run()", "GetWeather.try_run()", "invoke_agent", "tool",
             "Agent[weather]", "run_agent(weather)", "weather (agent)", "get_weather [tool]",
             "ChatOpenAI(model)", "agent.query", "Agent._execute_tool", "Agent._run_internal",
             "Agent.run_stream", "chat.send_message", "model.train", "model.generate_content",
             "chat.stream", "Chat.send_message", "agent:weather:run", "db.query",
             "tool: get_weather()", "agent: null-weather", "Agent.weather.call_tool",
             "Agent.weather.attach_llm", "Agent: 'weather' generate", 'Agent: "x y" go',
             "weather.run", "weather._execute_core", "ReportGenerator.generate",
             "OrderService.complete", "Ticket.transfer", "ChatModel.generate",
             "TriageAgent.transfer", "Agent.generate", "tool.Bank.transfer",
             "llm.(*Client).generate",
             "OpenRouter.generate", "HuggingFacePipeline.generate", "x.chat.start-1",
             "backend.openai.chat.start-1", "tool.lookup.run.error-1", "x.chat.on_end",
             "tool:lookup", "tool:transfer", "tool:generate", "Calling tool x",
             "Running tool: lookup", "Invoking agent x", "AxGen > weather", " > ",
             "__main__._Agent.run", "app.agents.Weather", "Agent - weather", "Agent | weather",
             "Agent – weather", "POST /chat", "GET", "GETx agent", "GET́ x.agent",
             "weather::run", "Bank::transfer", "com.acme.bank.AccountService.transfer",
             "github.com/acme/bank.(*Account).Transfer", "Agent", "OpenAI Agent", "",
             "OpenAIClient.request_async", "openai.resources.AsyncCompletions.create",
             "InferenceRouter.openai_chat_completion", "ChatService.send", "ModelStore.create",
             "TaskCompletion.request", "OpenAIClient.build_request_data",
             "ModelRegistry.register", "OpenRouter::achat", " OllamaClient.stream_raw ",
             # a host label not in lower case is no Go import path, though the count of labels
             # is (each test of the host's words must hold, not one of them)
             "GitHub.com/acme/kit/agent.Run", "git_hub.com/acme/kit/agent.(*Agent).Run",
             # a call's parentheses alone after the kind word: the whole name pins it
             "agent ()", "agent: ()", "tool: ()", "agent: () run",
             # a Go receiver type is upper case and all word characters: a lower-case one or one
             # with a `*` inside is the package's function path, not a method
             "github.com/acme/kit/tool.weather.Run", "github.com/acme/kit/weather.agent.Run",
             "github.com/acme/kit/agent.A*b.Run",
             # a method called by name: both the class and the method are identifiers
             "Agent.run-x()", "weather-x.agent()", "Tool.x y()"]
    assert _differences(names) == []


def test_tags_read_alike() -> None:
    """Tags naming a kind as a method called by name (`Tool.run()`) read it only when both the
    class and the method are identifiers; otherwise the whole tag is read."""
    for tags in (["x-y.Agent()"], ["x y.Tool()"], ["Agent.run-x()"], ["Tool.run()"],
                 ["LLM", "x-y.Tool()"], ("Agent.run()", "agent"),
                 # two kinds named: no kind (the last found is not taken)
                 ["LLM", "Tool.run()"], ["agent", "tool"], ("tool", "Agent.run()", "agent")):
        assert compiled.tag_kind(tags) == oracle._tag_kind(tags), tags


@pytest.mark.parametrize("value", [None, 3, 2.5, True, b"agent", ("agent",), {"agent": 1}])
def test_values_that_are_no_string(value: Any) -> None:
    assert compiled.kind_word(value) == oracle._kind_word(value)
    assert compiled.provider(value) == oracle._provider(value)
    assert compiled.tag_kind(value) == oracle._tag_kind(value)
    if value is None:
        assert inference.agent_name_ok(value) == oracle.agent_name_ok(value)


# ---- the readers of one span's attributes (core/src/inference_attrs.rs)

def _value(value: Any) -> Any:
    """An OTLP JSON AnyValue as the SDK holds it (an array a tuple, a big int an int)."""
    if not isinstance(value, dict) or len(value) != 1:
        return value
    (kind, item), = value.items()
    if kind == "intValue" and isinstance(item, (int, str)):
        try:
            return int(item)
        except ValueError:
            return item
    if kind == "arrayValue" and isinstance(item, dict):
        return tuple(_value(v) for v in item.get("values") or ())
    if kind == "kvlistValue" and isinstance(item, dict):
        return {kv.get("key"): _value(kv.get("value")) for kv in item.get("values") or ()
                if isinstance(kv, dict)}
    return item


def _attribute_sets(value: Any, found: list[tuple[dict[str, Any], str]]) -> None:
    """Every attribute mapping in a parsed document (a span's, an event's, a resource's), with
    the name beside it: OTLP's key/value lists, and plain mappings as other dumps hold them."""
    if isinstance(value, dict):
        attrs = value.get("attributes")
        name = value.get("name")
        name = name if isinstance(name, str) else ""
        if isinstance(attrs, list):
            found.append(({kv["key"]: _value(kv.get("value")) for kv in attrs
                           if isinstance(kv, dict) and isinstance(kv.get("key"), str)}, name))
        elif isinstance(attrs, dict) and all(isinstance(k, str) for k in attrs):
            found.append((dict(attrs), name))
        for item in value.values():
            _attribute_sets(item, found)
    elif isinstance(value, list):
        for item in value:
            _attribute_sets(item, found)


@cache
def attribute_corpus() -> tuple[tuple[dict[str, Any], str], ...]:
    """Every attribute mapping of the recorded corpus under tests/, with its span's name."""
    found: list[tuple[dict[str, Any], str]] = []
    for path in sorted(ROOT.rglob("*.json*")):
        if _SKIP & set(path.relative_to(ROOT).parts) or not path.is_file():
            continue
        for document in _documents(path):
            _attribute_sets(document, found)
    return tuple(found)


# the tails `_named` reads name keys by
_TAILS = (inference._AGENT_NAMES, inference._AGENT_NAMES[:1], inference._TOOL_NAMES,
          inference._APP_NAMES)
# (the package's reader, its oracle): each reads one span's attributes and its name
ATTRIBUTE_READERS: dict[str, tuple[Callable[[Any, str], Any], Callable[[Any, str], Any]]] = {
    "model_source": (lambda a, n: compiled.model_source(a, n), oracle.model_source),
    "model_in_parameters": (lambda a, _: inference.model_in_parameters(a),
                            lambda a, _: oracle.model_in_parameters(a)),
    "failure_source": (lambda a, _: inference.failure_source(a),
                       lambda a, _: oracle.failure_source(a)),
    "tokens_source in": (lambda a, _: inference.tokens_source(a, inference.INPUT_SIDE),
                         lambda a, _: oracle.tokens_source(a, inference.INPUT_SIDE)),
    "tokens_source out": (lambda a, _: inference.tokens_source(a, inference.OUTPUT_SIDE),
                          lambda a, _: oracle.tokens_source(a, inference.OUTPUT_SIDE)),
    "handoff_source from": (lambda a, _: inference.handoff_source(a, "from"),
                            lambda a, _: oracle.handoff_source(a, "from")),
    "handoff_source to": (lambda a, _: inference.handoff_source(a, "to"),
                          lambda a, _: oracle.handoff_source(a, "to")),
    "caller_source": (lambda a, _: inference.caller_source(a),
                      lambda a, _: oracle.caller_source(a)),
    "requested_in_keys": (lambda a, _: inference.requested_in_keys(a),
                          lambda a, _: oracle.requested_in_keys(a)),
    "model_key_rank": (lambda a, _: [inference.model_key_rank(k) for k in a],
                       lambda a, _: [oracle.model_key_rank(k) for k in a]),
    "tool_names": (lambda a, _: compiled.tool_names(a), lambda a, _: oracle.tool_names(a)),
    "_name_key": (lambda a, _: [compiled.name_key(k, t) for k in a for t in _TAILS],
                  lambda a, _: [oracle._name_key(k, t) for k in a for t in _TAILS]),
}


def _attribute_differences(sets: Any) -> list[tuple[str, Any, Any, Any]]:
    return [(reader, attrs, core(attrs, name), python(attrs, name))
            for attrs, name in sets for reader, (core, python) in ATTRIBUTE_READERS.items()
            if core(attrs, name) != python(attrs, name)]


def test_the_attribute_corpus_is_large() -> None:
    assert len(attribute_corpus()) > 15_000


def test_every_corpus_attribute_set_reads_alike() -> None:
    assert _attribute_differences(attribute_corpus()) == []



def test_attribute_sets_at_the_edges_read_alike() -> None:
    """A requested tool's name of the longest length kept (256 code points) and one longer,
    which is no name (the generated sets reach that key with long values too rarely)."""
    key = "gen_ai.completion.0.tool_calls.0.name"
    sets = [({key: "w" * n}, "x") for n in (255, 256, 257, 300)]
    sets.append(({key: "w" * 300, "llm.output_messages.0.tool_calls.1.name": "lookup"}, "x"))
    assert _attribute_differences(sets) == []
    assert inference.requested_in_keys({key: "w" * 256}) == ("w" * 256,)
    assert inference.requested_in_keys({key: "w" * 257}) == ()


_KEY_WORD = st.sampled_from(("error", "Error", "failure", "failed", "exception", "fault", "type",
                             "class", "name", "message", "level", "token", "tokens", "Tokens",
                             "input", "prompt", "output", "completion", "reply", "model", "Model",
                             "request", "response", "id", "handoff", "transfer", "from", "to",
                             "agent", "caller", "previous", "label", "tool", "call", "calls",
                             "choices", "parameters", "entity", "0", "2", "١", "gen_ai", "usage",
                             "llm", "x", "code", "actor", "app", "user", "target", "next"))
_KEY = st.one_of(st.lists(st.one_of(_KEY_WORD, _SEPARATOR), min_size=1, max_size=8).map("".join),
                 _TEXT)
_WORDS = st.sampled_from(("", " ", "true", "false", "None", "null", "0", "no", "OK", "ERROR",
                          "Fatal", "critical", "gpt-4o", '"gpt-4o"', " unknown ", "none",
                          "<class 'openai.RateLimitError'>", "openai.RateLimitError",
                          "a sentence of an error", "model.llm.gpt-4o", "Model", "x" * 41,
                          "\udc80", "weather\udc80", '{"model": "gpt-4o"}', '{"model": "\\ud800"}',
                          '{"model": " x "}', '{"model": null}', "{", "İ", "K"))
_ATTRIBUTE_VALUE = st.one_of(
    _WORDS, _TEXT, st.booleans(), st.integers(), st.integers(min_value=2**62, max_value=2**70),
    st.integers(min_value=-2**70, max_value=-2**62), st.floats(), st.none(),
    st.lists(st.one_of(_WORDS, st.integers()), max_size=3),
    st.lists(st.one_of(_WORDS, st.integers()), max_size=3).map(tuple),
    _WORDS.map(lambda w: w * 300))
_SPAN_NAME = st.one_of(_TEXT, st.sampled_from(("openai/gpt-4o", " litellm/x:y@z ", "a/b",
                                               "openai/" + "x" * 121, "openai/gpt 4o\n")))


@settings(max_examples=1500, deadline=None)
@given(st.dictionaries(_KEY, _ATTRIBUTE_VALUE, max_size=8), _SPAN_NAME)
def test_generated_attribute_sets_read_alike(attrs: dict[str, Any], name: str) -> None:
    # a record's mapping may be a read-only view of the SDK's dict: read by its items()
    assert _attribute_differences([(attrs, name), (MappingProxyType(attrs), name)]) == []


def test_entity_keys_read_alike() -> None:
    """A numbered entity typed a model names it beside its type key, in the key's own case."""
    for attrs in ({"x.entity.2.type": "model.llm.gpt-4o", "x.entity.2.name": "gpt-4o"},
                  {"x.entity.2.TYPE": "Model", "x.entity.2.name": " m "},
                  {"x.entity.2.type\udc80": "model", "x.entity.2.tname": "m"},
                  {"x.entity.2.type": "model", "x.entity.2.name": "none"},
                  {"llm.invocation_parameters": '{"model": "gpt-4o", "model": "o3"}'}):
        assert _attribute_differences([(attrs, "")]) == []


# ---- inference's precedence (core/src/inference_infer.rs): `infer` and its readers of a record

def _events(value: Any) -> tuple[tuple[str, dict[str, Any]], ...]:
    """A span's events as the SDK holds them: (name, attributes)."""
    if not isinstance(value, list):
        return ()
    return tuple((e["name"], {kv["key"]: _value(kv.get("value")) for kv in e.get("attributes") or ()
                              if isinstance(kv, dict) and isinstance(kv.get("key"), str)})
                 for e in value if isinstance(e, dict) and isinstance(e.get("name"), str))


def _records(value: Any, scope: str, found: list[SpanRecord]) -> None:
    """Every span-like mapping of a parsed document (a name and attributes) as a SpanRecord:
    OTLP's spans with their scope's name and their events, and plain dumps as other files hold
    them."""
    if isinstance(value, dict):
        named = value.get("scope")
        if isinstance(named, dict) and isinstance(named.get("name"), str):
            scope = named["name"]
        attrs, name = value.get("attributes"), value.get("name")
        if isinstance(name, str) and isinstance(attrs, list):
            found.append(SpanRecord(1, len(found) + 1, None, name, scope_name=scope,
                                    events=_events(value.get("events")), attributes={
                kv["key"]: _value(kv.get("value")) for kv in attrs
                if isinstance(kv, dict) and isinstance(kv.get("key"), str)}))
        elif isinstance(name, str) and isinstance(attrs, dict) and all(
                isinstance(k, str) for k in attrs):
            found.append(SpanRecord(1, len(found) + 1, None, name, scope_name=scope,
                                    attributes=dict(attrs)))
        for item in value.values():
            _records(item, scope, found)
    elif isinstance(value, list):
        for item in value:
            _records(item, scope, found)


@cache
def record_corpus() -> tuple[SpanRecord, ...]:
    """Every span record of the recorded corpus under tests/ (the fixtures, the held-out sets,
    the tuning share, the negative set)."""
    found: list[SpanRecord] = []
    for path in sorted(ROOT.rglob("*.json*")):
        if _SKIP & set(path.relative_to(ROOT).parts) or not path.is_file():
            continue
        for document in _documents(path):
            _records(document, "", found)
    return tuple(found)


# (the package's reader, its oracle): each reads one span record
RECORD_READERS: dict[str, tuple[Callable[[SpanRecord], Any], Callable[[SpanRecord], Any]]] = {
    "infer": (inference.infer, oracle.infer),
    "kind_words": (lambda r: inference.kind_words(r.attributes),
                   lambda r: oracle.kind_words(r.attributes)),
    "tool_readings": (inference.tool_readings, oracle.tool_readings),
    "_bare_name": (inference._bare_name, oracle.bare_name),
}


def _record_differences(records: Any) -> list[tuple[str, SpanRecord, Any, Any]]:
    return [(reader, record, core(record), python(record))
            for record in records for reader, (core, python) in RECORD_READERS.items()
            if core(record) != python(record)]


def test_the_record_corpus_is_large() -> None:
    records = record_corpus()
    assert len(records) > 15_000
    # every kind and every way of finding one is in it (a reader that found nothing would pass)
    found = {(f.kind, f.evidence) for f in map(oracle.infer, records)}
    assert {("agent", "attribute"), ("tool", "name"), ("llm", "genai"), ("other", "candidate"),
            ("other", "lifecycle"), ("other", None), ("tool", "function")} <= found


def test_every_corpus_record_infers_alike() -> None:
    assert _record_differences(record_corpus()) == []


def test_infer_gives_the_packages_inferred() -> None:
    found = inference.infer(SpanRecord(1, 2, None, "weather.agent", scope_name="s"))
    assert type(found) is inference.Inferred and found.name == "weather"


_NAME_PART = st.sampled_from((
    "weather", "get_weather", "agent", "Agent", "tool", "tool_call", "llm", "chat", "workflow",
    "run", "invoke", "execute_tool", "invoke_agent", "function", "function_invocation", "{name}",
    "{x.y!r:>4}", "{1x}", "langchain4j-agent", "langchain4j-tools", "openai/gpt-4o", "x.chat",
    "start-1", "Agent.init", "Agent.__init__", "Agent.INİTIALİZE", "create_agent", "DeleteAgent",
    "agents.list", "agent::new", "list agents", "Agent.before_run()", "__main__._Agent", "zeta",
    "ZetaAgent", "LettaAgent.step", "update_agent", "(merged tools)", "Agent: 'weather' go",
    "weather: find the forecast", "AxGen > weather", "GET", "POST /chat", "ſetup", "K"))
_NAMES = st.one_of(
    st.lists(st.one_of(_NAME_PART, _SEPARATOR), min_size=1, max_size=5).map("".join), _TEXT)
_RECORD_KEY = st.one_of(
    st.sampled_from(("span.kind", "span.type", "x.span.subtype", "x.span.type", "x.entity.type",
                     "logfire.tags", "tags", "gen_ai.operation.name", "gen_ai.tool.name",
                     "gen_ai.tool.call.id", "gen_ai.request.model", "gen_ai.agent.name",
                     "gen_ai.system", "gen_ai.provider.name", "gen_ai.usage.input_tokens",
                     "gen_ai.prompt.0.content", "gen_ai.completion.١.role", "x.usage.tokens.input",
                     "url.scheme", "url.path", "url.query", "op", "http.method", "x.agent.name",
                     "agent", "x.agent_name", "x.app_name", "x.tool.name", "x.span.name",
                     "x.span.path", "x.name", "name", "x.from_agent", "x.previous.agent.name",
                     "zeta.name", "weather.name", "operation.name", "resource.name")),
    _KEY)
_RECORD_VALUE = st.one_of(
    st.sampled_from(("agent", "AGENT", "tool", "tool_call", "llm", "chat", "workflow", "handoff",
                     "function", "Function", "subagent", "AgentSpan", "create_agent",
                     "generate_content", "execute_tool", "chat", "framework", "openai",
                     "aws.bedrock", "langchain4j-agent", "langchain4j-tools", "weather",
                     "get_weather", "weather\n", "EVENT_SENT", "name=QueryUserById",
                     "a=1&name=Query%20User+Id%C3%A9", "name=%zz&name=x", "name=\udc80",
                     "billing", "x" * 41, "(merged tools)", " weather ", '"weather"', "unknown",
                     "weather get_weather", "zeta weather")),
    st.lists(st.sampled_from(("LLM", "agent", "Tool.run()", "x", "tool")), max_size=3),
    st.lists(st.sampled_from(("LLM", "agent", "Tool.run()", "x")), max_size=3).map(tuple),
    _ATTRIBUTE_VALUE)
_EVENT = st.tuples(st.sampled_from(("gen_ai.choice", "exception", "gen_ai.content.prompt", "x")),
                   st.just({}))


@st.composite
def _generated_records(draw: st.DrawFn) -> SpanRecord:
    name = draw(_NAMES)
    attrs = draw(st.dictionaries(_RECORD_KEY, _RECORD_VALUE, max_size=6))
    if draw(st.booleans()):  # an attribute saying `<span name> <subject>`, another the subject
        subject = draw(st.sampled_from(("weather", "get_weather", "x y", "a\udc80")))
        attrs[draw(_RECORD_KEY)] = f"{name.strip()} {subject}"
        attrs[draw(_RECORD_KEY)] = subject
    if draw(st.booleans()):  # the span's own name key, a placeholder's key, an endpoint's scheme
        attrs[name.strip() + draw(st.sampled_from((".name", "")))] = draw(_RECORD_VALUE)
    scope = draw(st.sampled_from(("", "zeta.sdk", "letta.otel.tracing", "s", "weather")))
    return SpanRecord(1, 2, None, name, scope_name=scope, attributes=attrs,
                      events=tuple(draw(st.lists(_EVENT, max_size=2))))


@settings(max_examples=3000, deadline=None)
@given(_generated_records())
def test_generated_records_infer_alike(record: SpanRecord) -> None:
    assert _record_differences([record]) == []
    # a record's mapping may be a read-only view of the SDK's dict
    view = SpanRecord(1, 2, None, record.name, scope_name=record.scope_name,
                      attributes=MappingProxyType(dict(record.attributes)), events=record.events)
    assert _record_differences([view]) == []


def test_records_of_each_rule_infer_alike() -> None:
    """A span of each rule `infer` weighs (the docstrings' examples) and the edges of its
    patterns (a placeholder's conversion, an endpoint's query, a conflict's quoting)."""
    def span(name: str, scope: str = "zeta.sdk", /, **attrs: Any) -> SpanRecord:
        return SpanRecord(1, 2, None, name, scope_name=scope, attributes=attrs)

    records = [
        span("langchain4j-agent", **{"url.scheme": "langchain4j-agent", "url.path": "weather"}),
        span("langchain4j-tools", **{"url.scheme": "langchain4j-tools", "url.path": "users",
                                     "url.query": "name=QueryUserById"}),
        span("langchain4j-tools", **{"url.scheme": "langchain4j-tools", "url.path": "users",
                                     "op": "EVENT_SENT"}),
        span("langchain4j-tools\udc80", **{"url.scheme": "langchain4j-tools?", "url.path": "u"}),
        span("step", **{"span.type": "tool", "x.kind": "agent"}),
        span("weather.agent", **{"span.type": "tool"}),
        span("step", **{"x.span.subtype": "tool_call", "x.span.type": "agent"}),
        span("step", **{"x.entity.type": "tool", "x.span.type": "agent"}),
        span("step", **{"span.type": "tool", "x.kind": "handoff"}),
        span("step", **{"span.type": "tool " * 20 + "\udc80", "x.kind": "agent\u3000"}),
        span("x" * 100 + ".agent", **{"span.type": "tool"}),
        span("{name!r}", **{"name": " weather "}),
        span("Agent run {name}", **{"name": "weather"}),
        span("ai.generateText", **{"operation.name": "ai.generateText weather",
                                   "resource.name": "weather"}),
        span("guard", **{"guard.name": "refund_guard\n"}),
        span("Agent.init"), span("Agent.INİTIALİZE"), span("create_agent"), span("agents::list"),
        span("update_agent", **{"zeta.agent_name": "billing", "zeta.from_agent": "triage"}),
        span("LettaAgent.step", "letta.otel.tracing"), span("weather.agent: find the forecast"),
        span("__main__._Agent.run", **{"x.app_name": "billing"}), span("Agent.before_run()"),
        span("(merged tools)", **{"span.kind": "tool"}),
        span("completion", **{"gen_ai.request.model": "gpt-4o"}),
        span("openai/gpt-4o"), span("step", **{"gen_ai.operation.name": "create_agent"}),
        span("step", **{"gen_ai.operation.name": "framework", "gen_ai.agent.name": "x"}),
        span("step", **{"logfire.tags": ("LLM",)}), span("step", **{"tags": ["Tool.run()"]}),
        span("GET /x", **{"http.method": "GET", "gen_ai.usage.input_tokens": 3}),
        span("x.chat.start-1"), span("function_invocation lookup"),
        # a query's escapes decoded (`%5F` is `_`), a placeholder's key past its 81 characters
        span("langchain4j-tools", **{"url.scheme": "langchain4j-tools", "url.path": "users",
                                     "url.query": "name=Query%5FUser&x=1"}),
        span("{" + "k" * 82 + "}", **{"k" * 82: "weather"}),
        span("{" + "k" * 81 + "}", **{"k" * 81: "weather"}),
        # indexed prompt keys: an index, then a dot; neither alone
        span("step", **{"gen_ai.prompt.0x": "a"}), span("step", **{"gen_ai.prompt..role": "a"}),
        span("step", **{"gen_ai.completion.0.role": "a"}),
        # a subject of 64 characters after the span name, the most `_subject` reads; and one past
        span("ai.op", **{"operation.name": "ai.op " + "s" * 64, "resource.name": "s" * 64}),
        span("ai.op", **{"operation.name": "ai.op " + "s" * 65, "resource.name": "s" * 65}),
        span("ai.op", **{"operation.name": "ai.op " + "s" * 10 + " " * 60,
                         "resource.name": "s" * 10}),
        # a code path's app name names an agent or nothing typed, never a workflow
        span("__main__.Weather.run", **{"x.span.type": "agent", "x.app_name": "billing"}),
        span("app.flows.weather.run", **{"x.span.type": "workflow", "x.app_name": "billing"}),
    ]
    assert _record_differences(records) == []
