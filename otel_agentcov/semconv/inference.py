"""Inference: a kind for a span no convention entry claims, from evidence no library owns.

Tables (the spec's `conventions:`, then the built-in ones) keep precedence: only a span none of
them matched is read here (docs/conventions.md#inference). Per span, three kinds of evidence:

- *kind words*: the value of an attribute whose key ends in a kind-like word (`span.kind`,
  `spanType`, `observation.type`, `:subtype`, ... under any vendor prefix and separator), and a
  kind word as an affix of the span name (`weather.agent`, `tool_call.get_time`,
  `execute_tool lookup`, `search_tool`);
- *GenAI evidence*: `gen_ai.*` model, usage, agent or tool keys, the indexed
  `gen_ai.prompt.N.*` / `gen_ai.completion.N.*` keys, prompt and completion span events, and
  `<provider>/<model>` span names;
- *outcome*: besides status and `error.type` (read for every span), a failure flag, else an
  exception event, whatever the span's status.

Kind words that disagree leave the span unclassified (`Inferred.conflict` says why). A span with
no evidence at all stays `other`, but keeps the name it would have as an agent or a tool, for
the assembler's structural pass (assembler/infer.py): the nearest span owning model calls and
tool executions is an agent run; a span named like a tool the model asked for is that tool.
Only keys, kind words and names are read, never content.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial, wraps
from typing import Any, TypeVar
from urllib.parse import unquote_plus

import re2

from .. import compiled
from ..records import STATUS_OK, SpanRecord
from .common import (
    PLACEHOLDER_AGENT_NAMES,
    PLACEHOLDER_MODELS,
    PLACEHOLDER_TOOLS,
    as_str,
    clip,
)
from .step import AGENT, HANDOFF, LLM, OTHER, TOOL, WORKFLOW, Step

# how an inferred span's kind was found (`Step.inferred`, counted in every report)
BY_ATTRIBUTE, BY_NAME, BY_GENAI, BY_STRUCTURE = "attribute", "name", "genai", "structure"
# a kind attribute saying only `function`: a tool, unless the trace shows it runs an agent
BY_FUNCTION = "function"
CANDIDATE = "candidate"  # no evidence of its own: the structural pass may still name it
# an event of a call's lifecycle recorded as a span (`x.chat.start-1`): no kind of its own, its
# stem kept for the structural pass to type the span it is under (assembler/infer.py)
LIFECYCLE = "lifecycle"
EVIDENCE = (BY_ATTRIBUTE, BY_FUNCTION, BY_NAME, BY_GENAI, BY_STRUCTURE)

# a kind word, as an attribute value or a span-name affix (lower case, `_` between words)
KIND_WORDS: Mapping[str, str] = {
    **dict.fromkeys(("agent", "agent_run", "invoke_agent", "agent_invocation", "subagent"),
                    AGENT),
    **dict.fromkeys(("tool", "tool_call", "tool_use", "tool_execution", "execute_tool",
                     "function", "func", "function_call", "tool_invocation", "toolkit"), TOOL),
    **dict.fromkeys(("llm", "model", "chat", "chat_model", "completion", "chat_completion",
                     "generation", "generate", "complete", "text_generation", "llm_call",
                     "model_call", "inference"), LLM),
    **dict.fromkeys(("workflow", "flow", "chain", "session", "task", "pipeline", "graph",
                     "team", "crew"), WORKFLOW),
    **dict.fromkeys(("handoff", "transfer"), HANDOFF),
}
# the last word(s) of a key that holds a kind: `span.kind`, `spanType`, `observation.type`
# kind words any traced function carries, agent and tool alike (`span_type: Function`)
_WEAK_WORDS = frozenset({"function", "func"})
_KIND_KEY_ENDS = frozenset({"kind", "type", "subtype", "category", "step", "operation", "op",
                            "component"})
# a word after a kind word saying only that one ran: `AGENT_EXECUTION`, `llm_request`
_RAN_WORDS = frozenset({"execution", "exec", "run", "call", "request", "invocation", "invoke",
                        "operation"})
# words after a kind word naming the record, not another kind (a class name: `AgentSpanData`;
# not `agent_step`, an agent's step)
_RECORD_WORDS = (("span", "data"), ("span",))
# the last word of a key holding a list of tags, one of which may name the kind (`('LLM',)`)
_TAG_KEY_ENDS = frozenset({"tags", "tag", "labels"})
_MAX_TAGS = 16
# a word after the kind word that says whose kind it is: `ag.type.node`, `x.kind.span`
_KIND_QUALIFIERS = frozenset({"node", "span", "value", "name"})
# keys ending so that hold something else's type (an error's, a message's, a payload's)
_NOT_KIND_KEYS = frozenset({
    "error", "exception", "mime", "message", "messages", "messaging", "payload", "content",
    "contents", "schema", "properties", "input", "output", "data", "source", "media",
    "event", "edge", "executor", "sender", "recipient", "value", "param", "params",
    "parameters", "arguments", "format", "finish", "response", "part", "parts", "role", "http",
    "db", "rpc", "net", "network", "os", "host", "cloud", "device", "process", "telemetry",
})
# a verb's -ing form before `agent` or `tool` (`Running tool: lookup`, `Invoking agent x`)
_RUNNING = frozenset({"running", "calling", "executing", "invoking"})
# words after a name that only say "a run of it": `weather.run`, `lookup.invoke`
RUN_WORDS = frozenset({"run", "arun", "invoke", "ainvoke", "call", "acall", "execute", "exec",
                        "query", "kickoff", "process", "handle", "forward", "step"})
# the first word of an operation a span name gives before what it ran, then `/` or `:`
# (`run/get_weather`, `apply_async/get_weather`: a task queue's; `StartActivity:get_weather`)
OPERATION_VERBS = RUN_WORDS | {"start", "schedule", "apply"}
_TOKEN_SIDES = frozenset({"input", "prompt", "output", "completion", "reply", "response"})
_ERROR_WORDS = frozenset({"error", "failure", "failed", "exception", "fault"})
_FALSE_VALUES = frozenset({"", "false", "none", "null", "0", "no", "ok", "success"})
_ERROR_LEVELS = frozenset({"error", "fatal", "critical"})  # `x.observation.level: ERROR`
# providers seen in `<provider>/<model>` span names (Genkit, LiteLLM, Vercel's gateway ...)
_PROVIDERS = frozenset({
    "openai", "anthropic", "google", "googleai", "vertexai", "gemini", "mistral", "ollama",
    "groq", "cohere", "bedrock", "azure", "azure_openai", "deepseek", "xai", "together",
    "fireworks", "meta", "huggingface", "openrouter", "perplexity", "cerebras", "compat_oai",
    "openai_compat", "litellm",
})
# ... and the words of the GenAI conventions' provider names (`gcp.vertex_ai`, `ibm.watsonx.ai`)
_PROVIDER_WORDS = _PROVIDERS | {"aws", "gcp", "vertex", "ibm", "watsonx", "x_ai", "nvidia", "ai21",
                                "az", "dashscope", "qwen", "zhipu", "moonshot", "minimax"}
_GENAI_LLM = ("gen_ai.request.model", "gen_ai.response.model", "gen_ai.usage.input_tokens",
              "gen_ai.usage.output_tokens", "gen_ai.usage.prompt_tokens",
              "gen_ai.usage.completion_tokens", "gen_ai.system", "gen_ai.provider.name")
_INDEXED = re.compile(r"gen_ai\.(?:prompt|completion)\.\d+\.")
_LLM_EVENTS = frozenset({"gen_ai.content.prompt", "gen_ai.content.completion", "gen_ai.choice",
                         "gen_ai.user.message", "gen_ai.system.message",
                         "gen_ai.assistant.message", "gen_ai.client.inference.operation.details"})


# Python's `\s` (the code points `str.isspace()` is true of, Python 3.11's Unicode) as an RE2
# class: RE2's is ASCII. Written out: computing it walked all 1.1 M code points at every import.
SPACE_RANGES = ((0x9, 0xD), (0x1C, 0x20), (0x85, 0x85), (0xA0, 0xA0), (0x1680, 0x1680),
                (0x2000, 0x200A), (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F),
                (0x3000, 0x3000))
_SPACE = "".join(f"\\x{{{a:x}}}" + (f"-\\x{{{b:x}}}" if b > a else "") for a, b in SPACE_RANGES)


def _linear(pattern: str) -> Any:
    """A name pattern on RE2, read as Python's `re` (DOTALL, Unicode `\\s`) reads it, in time
    linear in the name: under `re`, a span name of 2 000 spaces took two minutes to read."""
    options = re2.Options()
    options.dot_nl = True
    options.log_errors = False
    pattern = pattern.replace(r"\s", f"[{_SPACE}]").replace(r"\S", f"[^{_SPACE}]")
    return re2.compile(pattern, options=options)


# `POST /chat`, `GET /tools/{id}`: an HTTP server's or client's span, whatever its route says
# a name that is a message template's placeholder (`Agent run: {name!r}`): the name is that key's
_PLACEHOLDER = re.compile(r"^\{([A-Za-z_][\w.]{0,80})(?:![rsa])?(?::[^{}]*)?\}$")
# an agent's span named by its label and then free text (a task, a question): the label
_LABEL_GROUP = r"([A-Za-z_][\w -]{0,63}?)\s*[.:].*\s.*"
_LABEL = _linear(f"^{_LABEL_GROUP}$")
_SUBJECT = re.compile(r"^[\w.-]{1,64}$")  # a name an operation ran for: one word, no path
# a class's own method building or tearing down its object (`Agent.init`, `Agent.close`), no
# run of it (an instance's, `Agent.billing.initialize`, is read as the instance's span)
_SETS_UP = re.compile(r"^\s*[A-Za-z_]\w{0,80}\.(?i:_*init_*|initiali[sz]e|setup|set_up|configure|"
                      r"build|create|close|shutdown|cleanup|teardown|reset|load|register|new)\s*$")
# an agent managed through an API, not run (GenAI's `create_agent` operation: `create_agent`,
# `DeleteAgent`, `list agents`, or as an agents service's method, `Agent.get`, `agents.list`):
# the verb and the kind word are the whole name. Only the verbs
# an agents API names its operations by: a verb an agent's task is named by too (`fetch_agent`,
# `deploy_agent`, `build_agent`, `retrieve_agent`, `describe_agent`, `add_agent`: an agent that
# fetches, deploys) names that agent's run, read by its name as any `<name>_agent`
MANAGE_VERBS = ("create", "delete", "get", "list", "register", "new", "remove")
_VERBS = "(?i:" + "|".join(MANAGE_VERBS) + ")"
_MANAGES = re.compile(rf"^\s*(?:{_VERBS}[\s_.:-]?(?i:agents?)|(?i:agents?)(?:[.:]|::){_VERBS})\s*$")
_LEADS = "-|>=~:\u2013\u2014"  # separators before a name (`Agent - weather`, `Agent | weather`)
_CALL = re.compile(r"^\s*([A-Za-z_]\w{0,80})\.([A-Za-z_]\w{0,80})\(\)\s*$")
_LLM_OWNER = frozenset({"chat", "llm"})  # a class of these words calls a model (`ChatOpenAI`)
# model-call kind words an app's own objects are named by (a chat between people, a data model)
_EVERYDAY = frozenset({"chat", "model", "completion", "generation"})
_CALLS = frozenset({"stream", "create", "invoke", "ainvoke", "acreate", "astream"})  # ... a call
# a class's name (`ReportGenerator`, `Ticket`: no module's or instance's, `weather`, `LLM`), then
# one of its methods, by `.` or `::` (`Bank::transfer`); what qualifies the class comes first
# (`com.acme.bank.AccountService.transfer`, Go's `github.com/acme/bank.(*Account).Transfer`)
# kinds an everyday verb names (`generate`, `complete`, `transfer`), and the words of a class
# whose method of that name is of the kind: a model's client (`ChatModel.generate`), an agent
# handing over (`TriageAgent.transfer`); another class's is its own work (`Ticket.transfer`)
_VERB_OWNERS: Mapping[str, frozenset[str]] = {
    LLM: _PROVIDER_WORDS | {"chat", "llm", "lm", "model", "models", "ai", "gpt", "completion",
                            "completions", "generative", "genai", "language", "inference",
                            # model families and model servers (`Claude`, `LlamaCpp`, `Vllm`)
                            "claude", "llama", "gemma", "mixtral", "vllm", "tgi", "replicate",
                            "sagemaker", "deepinfra", "llamafile"},
    HANDOFF: frozenset({"agent", "agents", "handoff", "swarm", "triage", "orchestrator",
                        "router", "supervisor"}),
}
# the words of a model client's method that makes a call, whole (`request_async`, `achat`,
# `openai_chat_completion`): a method with any other word prepares, converts or handles one
_CLIENT_CALLS = frozenset({"request", "create", "acreate", "chat", "achat", "complete",
                           "acomplete", "completion", "completions", "generate", "agenerate",
                           "stream", "astream", "invoke", "ainvoke", "send", "predict"})
_CALL_QUALIFIERS = frozenset({"async", "sync", "stream", "streaming", "raw"})
# ... and the words of its class: a model client's, less those an app's own classes have
_CLIENT_OWNERS = _VERB_OWNERS[LLM] - {"chat", "model", "models", "ai", "language", "completion",
                                     "completions"}
_CACHE = 4096  # per-key and per-name caches: keys and names come from telemetry, bound them
_CACHED_CHARS = 512  # ... in bytes too: a longer key or name is read each time, never kept
_T = TypeVar("_T")


def _short_cached(read: Callable[[str], _T]) -> Callable[[str], _T]:
    """`read` with an LRU cache of `_CACHE` strings of at most `_CACHED_CHARS` each."""
    cached = lru_cache(maxsize=_CACHE)(read)

    @wraps(read)
    def call(text: str) -> _T:
        if not text.isascii():  # the core reads UTF-8: a lone surrogate (any SDK str holds one)
            text = text.encode("utf-8", "replace").decode("utf-8")  # is read as `clip` reads it
        return cached(text) if len(text) <= _CACHED_CHARS else read(text)
    return call


# words saying a name key names someone else: a user, the last or the calling agent, a target
_OTHERS = frozenset({"user", "previous", "prev", "parent", "from", "next", "caller", "target",
                     "to"})
# an agent's name: `x.agent.name`, `agent`, `x.agent.label`; an actor's (an agent of an actor
# framework: `actor_name`)
_AGENT_NAMES = (("agent", "name"), ("agent",), ("agent", "label"), ("actor", "name"))
_APP_NAMES = (("app", "name"),)  # the app a code path's span runs for (`x.app_name`)
_TOOL_NAMES = (("tool", "name"), ("tool", "call", "name"), ("tool",))  # `tool: get_weather`
# a model call's model: the last words of a key naming it, in the order they are read
_MODEL_KEYS = (("response", "model"), ("request", "model"), ("model", "name"), ("model", "id"),
               ("model",))
MODEL_IN_NAME = "(model in the span name)"  # `model_source` when `<provider>/<model>` says it
MODEL_IN_NAME_REGEX = r"[a-z][a-z0-9_-]*/(.+)"  # ... and the span-name pattern that reads it
MODEL_MEMBER = "model"  # the member of a call's parameters (`x.invocation_parameters`) naming it
_MAX_PARAMETERS = 4096  # longer parameters are not parsed for the model: a name is never that far
# a hand-off's keys: the words saying it holds one, and those naming the agent that handed over
_HANDOFF_WORDS = frozenset({"handoff", "transfer"})
_CAME_FROM = frozenset({"from", "caller", "previous"})
# the words of a model's output side, where the tools it asked for are named
_REQUEST_SIDES = frozenset({"completion", "completions", "output", "response", "choices"})


# Inference's readers of one string (a key, a name, a value) are the core's
# (core/src/inference.rs; tests/_inference_oracle.py is their Python twin): the vocabulary they
# read by is this module's, handed to the core once here, so no word list is written twice.
# Keys and names repeat from span to span: the LRU in front of the core answers a repeat
# without crossing into it.
compiled.bind_inference_words({
    "kind_words": KIND_WORDS, "weak": _WEAK_WORDS, "kind_key_ends": _KIND_KEY_ENDS,
    "ran": _RAN_WORDS, "record_words": _RECORD_WORDS, "tag_key_ends": _TAG_KEY_ENDS,
    "max_tags": _MAX_TAGS, "qualifiers": _KIND_QUALIFIERS, "not_kind_keys": _NOT_KIND_KEYS,
    "running": _RUNNING, "run_words": RUN_WORDS, "operation_verbs": OPERATION_VERBS,
    "provider_words": _PROVIDER_WORDS,
    "token_sides": _TOKEN_SIDES, "verb_owners": _VERB_OWNERS, "llm_owner": _LLM_OWNER,
    "everyday": _EVERYDAY, "calls": _CALLS, "leads": _LEADS, "client_calls": _CLIENT_CALLS,
    "call_qualifiers": _CALL_QUALIFIERS, "client_owners": _CLIENT_OWNERS,
    "placeholder_agents": PLACEHOLDER_AGENT_NAMES, "error_words": _ERROR_WORDS,
    "false_values": _FALSE_VALUES, "error_levels": _ERROR_LEVELS, "handoff_words": _HANDOFF_WORDS,
    "came_from": _CAME_FROM, "request_sides": _REQUEST_SIDES, "model_keys": _MODEL_KEYS,
    "model_in_name": MODEL_IN_NAME, "model_member": MODEL_MEMBER,
    "max_parameters": _MAX_PARAMETERS, "others": _OTHERS, "tool_names": _TOOL_NAMES,
    "agent": AGENT, "tool": TOOL, "llm": LLM})
words = _short_cached(compiled.words)
_norm = _short_cached(compiled.norm)
_kind_key = _short_cached(compiled.kind_key)
tag_key = _short_cached(compiled.tag_key)
_usage_key = _short_cached(compiled.usage_key)
_kind_word, _tag_kind = compiled.kind_word, compiled.tag_kind
_affix_kind, _provider = compiled.affix_kind, compiled.provider
# a span name's kind affix, the name without it and the (glob, regex) pinning it: the glob and
# the regex byte for byte what Python's `glob_literal` and `re.escape` write
name_affix = _short_cached(compiled.name_affix)
lifecycle_stem = _short_cached(compiled.lifecycle_stem)
go_function = _short_cached(compiled.go_function)
glob_literal, agent_name_ok = compiled.glob_literal, compiled.agent_name_ok
_tool_prefixed, _code_path = compiled.tool_prefixed, compiled.code_path
_last_crumb = compiled.last_crumb
# Inference's readers of one span's attributes are the core's too (core/src/inference_attrs.rs;
# the oracle has their Python), each walking the record's mapping in its order: `failure_source`
# (key, error) of a failure flag (`x.error: true`, `x.error.type: Timeout`, `x.level: ERROR`);
# `tokens_source` (key, count) of a token count on one side (INPUT_SIDE, OUTPUT_SIDE);
# `handoff_source` (key, agent) a hand-off leaves ("from") or reaches ("to"); `caller_source`
# (key, agent) an agent's span names as the one that handed over; `requested_in_keys` the tool
# names a model asked for in indexed output keys; `model_in_parameters` (key, model) of a call's
# JSON parameters; `model_key_rank` where a model key ranks among `_MODEL_KEYS`; `_name_key`
# whether a key holds a name ending in one of some tails (`_AGENT_NAMES`: not an indexed key, a
# user's, another span's as `x.from.agent`, nor `code.function.name`, the instrumented function);
# `tool_names` the values of the keys holding a tool's name (`_TOOL_NAMES`), stripped.
failure_source, tokens_source = compiled.failure_source, compiled.tokens_source
handoff_source, caller_source = compiled.handoff_source, compiled.caller_source
requested_in_keys, model_in_parameters = compiled.requested_in_keys, compiled.model_in_parameters
model_key_rank, _name_key = compiled.model_key_rank, compiled.name_key


def model_source(record: SpanRecord) -> tuple[str, str] | None:
    """(key, model) of a model call's model under any vendor's key, else a numbered entity's
    typed a model, else its parameters', else from a `<provider>/<model>` span name (key
    MODEL_IN_NAME): the core's reading of the attributes and the name."""
    return compiled.model_source(record.attributes, record.name)


@dataclass(frozen=True, slots=True)
class Inferred:
    """What inference read of one span: its kind (`other` when no evidence or a conflict), how
    it was found, the attribute or name pattern that said so, and where its name came from."""

    kind: str
    evidence: str | None  # BY_ATTRIBUTE, BY_NAME, BY_GENAI; CANDIDATE for no evidence; None
    key: str | None = None  # the kind attribute (BY_ATTRIBUTE) or the GenAI key (BY_GENAI)
    value: str | None = None  # its kind word, as written (never content: a vocabulary word)
    affix: tuple[str, str] | None = None  # the span name's (glob, regex with the name as (.+))
    name: str | None = None  # the agent or tool name (or a candidate's)
    name_key: str | None = None  # the attribute the name came from (None: the span name)
    conflict: str | None = None  # why kinds that disagree left it unclassified


# an HTTP request's keys (stable and older semconv): a span carrying one is a request
_HTTP_KEYS = ("http.request.method", "http.method", "url.full", "http.url", "http.target")
_span_affix = _short_cached(compiled.span_affix)
_request_affix = _short_cached(partial(compiled.span_affix, http=True))


def span_affix(record: SpanRecord) -> tuple[str, str, tuple[str, str]] | None:
    """`name_affix` of the span's name, but none for a request's span named as a Go function
    is (`api.openai.com/v1/chat.completions`: a client's span named by host and path): its
    HTTP keys say the name is a URL, which names no operation (the span kind does not: a Go
    client of a model's API may well be a CLIENT span named by its function)."""
    if any(key in record.attributes for key in _HTTP_KEYS):
        return _request_affix(record.name)
    return _span_affix(record.name)


def _named(attrs: Mapping[str, Any], tails: tuple[tuple[str, ...], ...],
           prefix: tuple[str, ...] | None) -> tuple[str, str] | None:
    """(key, name) of the first attribute whose words end in one of `tails`, else the kind
    key's own `name` (`lmnr.span.name` beside `lmnr.span.type`), else its own `path`
    (`x.file.path: weather` beside `x.file.type: flow`: a registry's path naming what it types,
    read whole, as a pinned entry's field reads it)."""
    fallback: tuple[str, str] | None = None
    path: tuple[str, str] | None = None
    for key, value in attrs.items():
        name = as_str(value.strip().strip('"')) if isinstance(value, str) and len(
            value) <= 256 else None
        if not name or name in PLACEHOLDER_MODELS:
            continue
        found = words(key)
        if _name_key(key, tails):
            return key, clip(name)
        own = prefix is not None and (found[:-1] == prefix or found[:-1] == (*prefix, "span"))
        if fallback is None and own and found[-1:] == ("name",):
            fallback = key, clip(name)
        elif path is None and own and found[-1:] == ("path",):
            path = key, clip(name)
    return fallback or path




GENAI_OPERATION = "gen_ai.operation.name"
# operations the kind words do not name; `create_agent` defines an agent, it runs nothing
_GENAI_OPERATIONS: Mapping[str, str] = {
    "create_agent": OTHER, "generate_content": LLM, "text_completion": LLM}


def _genai_kind(record: SpanRecord) -> tuple[str, str | None] | None:
    """GenAI evidence without a table, (kind, the key that says so: None for an event or a
    span name): a tool's keys, a model call's, an agent's, then usage alone."""
    attrs = record.attributes
    operation = attrs.get(GENAI_OPERATION)
    if isinstance(operation, str) and len(operation) <= 40:
        kind = _GENAI_OPERATIONS.get(operation) or _affix_kind(operation)
        # an operation the conventions do not define (`framework`, `execute_event_loop_cycle`)
        # says the span is none of theirs: its agent or usage keys are its context's
        return (kind, GENAI_OPERATION) if kind is not None else (OTHER, None)
    for key in ("gen_ai.tool.name", "gen_ai.tool.call.id"):
        if key in attrs:
            return TOOL, key
    for key in _GENAI_LLM[:2]:
        if key in attrs:
            return LLM, key
    if any(_INDEXED.match(k) for k in attrs) or any(n in _LLM_EVENTS for n, _ in record.events):
        return LLM, None
    for key in ("gen_ai.agent.name", "gen_ai.agent.id"):
        if key in attrs:
            return AGENT, key
    for key in _GENAI_LLM[2:]:
        if key in attrs and (key not in _GENAI_LLM[-2:] or _provider(attrs[key])):
            return LLM, key
    usage = next((k for k in attrs if _usage_key(k)), None)
    if usage is not None:
        return LLM, usage
    found = compiled.model_in_name(record.name)
    if found is not None and found[0] in _PROVIDERS:
        return LLM, None
    return None


def _said(attrs: Mapping[str, Any]) -> tuple[list[tuple[str, str, str]], tuple[str, ...] | None]:
    """(kind, key, value) of each kind attribute naming a kind, and the first one's vendor
    prefix (where its own `name` key would be)."""
    said: list[tuple[str, str, str]] = []
    prefix: tuple[str, ...] | None = None
    for key, value in attrs.items():
        vendor = _kind_key(key)
        kind = _kind_word(value) if vendor is not None else None
        if vendor is None and isinstance(value, (tuple, list)):
            vendor = tag_key(key)
            tagged = _tag_kind(value) if vendor is not None else None
            if tagged is not None:
                kind, value = tagged
        if kind is not None:
            said.append((kind, key, value))
            prefix = vendor if prefix is None else prefix
    return said, prefix


def kind_words(attrs: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(key, kind word) of each attribute naming a kind (`explain` pins which one inference
    preferred)."""
    return [(key, value) for _, key, value in _said(attrs)[0]]


def _name(record: SpanRecord, kind: str, bare: str | None,
          prefix: tuple[str, ...] | None) -> tuple[str, str] | None:
    """(key, name) from the attributes, or None where the span name is the name. An agent's
    name is in its attributes; a function's or a workflow's span is named as it is (attributes
    there may be the whole trace's, as a framework's `lc_agent_name`), unless its name only
    says `run` or `agent`, or is only the name of the library that traced it (`autoagents.task`
    from the scope `autoagents.telemetry`)."""
    own = _norm(bare or record.name)
    generic = not own or own in KIND_WORDS or own.split("_")[0] in RUN_WORDS or (
        own == _norm(record.scope_name.split(".")[0]))
    attrs = record.attributes
    if kind == AGENT or (kind in (WORKFLOW, OTHER) and generic):
        named = _named(attrs, _AGENT_NAMES, prefix)
        if named is None and kind == OTHER:
            named = _named(attrs, _TOOL_NAMES, prefix)
        return named
    if kind in (OTHER, LLM):  # a span of no kind naming the agent it runs (`x.turn.agent_name`),
        # a model call the agent it ran for (should it be that agent's loop around calls)
        return _named(attrs, _AGENT_NAMES[:1], None)
    return _named(attrs, _TOOL_NAMES, prefix) if kind == TOOL else None


def _placeholder(record: SpanRecord, bare: str | None) -> tuple[str, str] | None:
    """(key, name) when the name is a template placeholder naming a string attribute."""
    found = _PLACEHOLDER.match((bare or record.name).strip())
    value = record.attributes.get(found.group(1)) if found is not None else None
    if found is None or not isinstance(value, str) or not value.strip() or len(value) > 256:
        return None
    return found.group(1), clip(value.strip().strip('"'))


def _own_key(record: SpanRecord) -> tuple[str, str] | None:
    """(key, name) of the attribute naming what the span name says it is (`guard.name` on a
    span named `guard`): the thing's own name, not its kind's."""
    key = record.name.strip() + ".name"
    value = record.attributes.get(key)
    if not isinstance(value, str) or not _SUBJECT.match(value.strip()):
        return None
    return key, clip(value.strip())


def _subject(record: SpanRecord) -> tuple[str, str] | None:
    """(key, name) when one attribute says `<span name> <subject>` and another holds that
    subject alone (`operation.name: "ai.generateText weather"`, `resource.name: weather`):
    what the operation ran for names it."""
    head = record.name.strip() + " "
    attrs = record.attributes
    subjects = {v[len(head):].strip() for v in attrs.values()
                if isinstance(v, str) and v.startswith(head) and len(v) <= len(head) + 64}
    if not subjects:
        return None
    return next(((key, value) for key, value in attrs.items()
                 if isinstance(value, str) and value in subjects and _SUBJECT.match(value)), None)


# an endpoint's span keyed by the scheme of the URI it calls, and the mark of the side sending to
# the endpoint (Camel's producer): of a tool endpoint, the route asking a model with the tool set
# the endpoint's consumers are (`to("langchain4j-tools:chat1?tags=weather")`), no tool's call
ENDPOINT_SCHEME = "url.scheme"
ENDPOINT_SENDS = ("op", "EVENT_SENT")
# the URI option of a tool endpoint naming the tool its model is offered, where it is not the
# endpoint's path (`langchain4j-tools:users?name=QueryUserById`: the model calls QueryUserById)
ENDPOINT_QUERY, ENDPOINT_TOOL_OPTION = "url.query", "name"


def _endpoint(record: SpanRecord) -> Inferred | None:
    """A span named by the scheme of the URI it calls (an integration framework's endpoint:
    span `langchain4j-agent`, `url.scheme: langchain4j-agent`, `url.path: weather`), a scheme
    saying an agent or a tool (a kind of them, as `_kind_word` reads one; plural too:
    `langchain4j-tools`), is that kind, named by the path: the span name is the component's,
    the path the instance's; a tool's, by the tool name its URI gives the model where it gives
    one (`ENDPOINT_TOOL_OPTION`). A tool endpoint's sending side (`ENDPOINT_SENDS`) is the chat
    offering its tools, no tool: nothing (its tools are the receiving sides under it)."""
    attrs = record.attributes
    scheme, path = attrs.get(ENDPOINT_SCHEME), attrs.get("url.path")
    if not isinstance(scheme, str) or not isinstance(path, str) or (
            record.name.strip() != scheme or not _SUBJECT.match(path)):
        return None
    kind = _kind_word(scheme) or _kind_word(scheme[:-1] if scheme.endswith("s") else "")
    if kind not in (AGENT, TOOL):
        return None
    if kind == TOOL and attrs.get(ENDPOINT_SENDS[0]) == ENDPOINT_SENDS[1]:
        return Inferred(OTHER, None)
    named = _query_option(attrs.get(ENDPOINT_QUERY), ENDPOINT_TOOL_OPTION) if kind == TOOL else None
    name = named if named is not None and _SUBJECT.match(named) else path
    return Inferred(kind, BY_ATTRIBUTE, ENDPOINT_SCHEME, scheme, name=clip(name),
                    name_key="url.path")


def _query_option(query: Any, option: str) -> str | None:
    """The first value of `option` in a URI's query string (`a=1&name=x`), decoded; None where
    it has none."""
    if not isinstance(query, str):
        return None
    prefix = option + "="
    return next((unquote_plus(part[len(prefix):]) for part in query.split("&")
                 if part.startswith(prefix)), None)


def _affix_kinds(affix: tuple[str, str, tuple[str, str]] | None) -> set[str]:
    """The kind a span-name affix says, if any."""
    return {affix[0]} if affix is not None and affix[0] else set()


def infer(record: SpanRecord) -> Inferred:
    """The kind the span's own evidence gives (docs/conventions.md#inference)."""
    stem = lifecycle_stem(record.name)
    if stem is not None:
        return Inferred(OTHER, LIFECYCLE, name=stem)
    endpoint = _endpoint(record)
    if endpoint is not None:
        return endpoint
    said, prefix = _said(record.attributes)
    affix = span_affix(record)
    if affix is not None and affix[0] and not affix[1] and (
            _genai_kind(record) or ("", ""))[0] == affix[0]:
        affix = None  # a bare kind word (`completion`) says what GenAI keys say, and less
    kinds = {k for k, _, _ in said}
    if affix is not None and affix[0]:
        kinds.add(affix[0])
    if len(kinds) > 1:  # a type over its own subtype (`span.subtype: tool_call`: the output's)
        said = [t for t in said if words(t[1])[-1:] != ("subtype",) or (
            t[1][: -len("subtype")] + "type") not in record.attributes] or said
        kinds = {k for k, _, _ in said} | _affix_kinds(affix)
    if len(kinds) > 1:  # the span's own type over a type its context carries (`entity.type`)
        own = [t for t in said if "span" in words(t[1])]
        if own and len({k for k, _, _ in own} | _affix_kinds(affix)) == 1:
            said, kinds = own, {own[0][0]}
    if kinds == {TOOL, HANDOFF}:  # a hand-off is a tool call that transfers: the narrower word
        said = [s for s in said if s[0] == HANDOFF]  # none: the span name says hand-off
        kinds = {HANDOFF}
    pattern = affix[2] if affix is not None else None
    if len(kinds) > 1:
        what = ", ".join(f"{k}={v!s:.40}" for _, k, v in said)
        where = f"span name {record.name[:60]!r}" if affix is not None and affix[0] else ""
        return Inferred(OTHER, None, conflict=f"kind words disagree: {what} {where}".strip(),
                        affix=pattern)
    key: str | None = None
    value: str | None = None
    if said:
        kind, key, value = said[0]
        weak = all(_norm(v) in _WEAK_WORDS for _, _, v in said) and not (affix and affix[0])
        evidence = BY_FUNCTION if weak else BY_ATTRIBUTE
    elif affix is not None and affix[0]:  # a function that ran (`function_invocation x`):
        # agent or tool alike, as the kind word `function` says in an attribute
        ran = words(affix[2][0])[:2]
        weak = len(ran) == 2 and ran[0] in _WEAK_WORDS and ran[1] in _RAN_WORDS
        kind, evidence = affix[0], BY_FUNCTION if weak else BY_NAME
    else:
        genai = _genai_kind(record)
        if genai is not None and genai[0] == OTHER:
            return Inferred(OTHER, None)  # an operation that runs nothing (`create_agent`)
        kind, key = genai if genai is not None else (OTHER, None)
        evidence = BY_GENAI if genai is not None else CANDIDATE
        if key == GENAI_OPERATION:  # its value told the kind: pinned by value, as a kind word is
            value = record.attributes[key]
    bare = affix[1] if affix is not None else None
    named = _name(record, kind, bare, prefix) or _placeholder(record, bare) or (
        _subject(record) if kind != TOOL else None) or _own_key(record)
    if named is not None:
        found = Inferred(kind, evidence, key, value, pattern, named[1], named[0])
    elif kind == LLM:
        return Inferred(kind, evidence, key, value, pattern)
    elif bare == "" and _CALL.match(record.name):  # `Agent.before_run()`: the class, no name
        return Inferred(OTHER, CANDIDATE) if kind == AGENT else Inferred(OTHER, None)
    elif kind in (OTHER, AGENT) and _code_path(bare or record.name) and (
            app := _named(record.attributes, _APP_NAMES, None)) is not None:
        found = Inferred(kind, evidence, key, value, pattern, app[1], app[0])
    else:
        name = bare or _last_crumb(clip(record.name.strip()))
        label = _LABEL.match(name) if kind == AGENT else None
        if label is not None and pattern is not None:  # `weather.<the task's words>`
            name, pattern = label.group(1), (pattern[0], pattern[1].replace(
                "(.+)", _LABEL_GROUP, 1))
        found = Inferred(kind, evidence, key, value, pattern if bare else None, name)
    if kind == TOOL and found.name in PLACEHOLDER_TOOLS:  # parallel calls merged: no tool
        return Inferred(OTHER, None)
    if found.name_key is None and kind in (OTHER, AGENT) and _library_class(
            found.name, record.scope_name):  # `LettaAgent.step` traced by `letta.otel`: the
        return Inferred(OTHER, CANDIDATE)  # library's own agent class names no agent of yours
    if kind == AGENT and (_SETS_UP.match(record.name) or _MANAGES.match(record.name)):
        return Inferred(OTHER, None)  # `Agent.init`, `create_agent`: an agent object built or
        # torn down, an agent created through an API: no run of it
    if kind == AGENT and evidence == BY_NAME and found.name_key is not None and (
            caller_source(record.attributes) is not None):
        # only its span name says agent (`update_agent`), its keys the agent before and the
        # one after: the switch between two runs, no run of its own
        return Inferred(OTHER, None)
    if kind == AGENT and (not agent_name_ok(found.name) or (  # `agent`: a framework's node,
            found.name_key is None and (bare == "" or _code_path(bare or record.name)))):
        # or its code path, or a kind word and a run word (`agent.query`): no name of its own
        return Inferred(OTHER, CANDIDATE, name=found.name, name_key=found.name_key)
    return found


def _library_class(name: str | None, scope: str) -> bool:
    """A name that is the tracing library's own name and a kind word (`LettaAgent` from the
    scope `letta.otel.tracing`, `AcmeTool` from `acme`): the library's class, no user's."""
    said = words(name or "")
    own = [w for w in said if w not in KIND_WORDS]
    return bool(own) and len(own) < len(said) and own == list(words(scope.split(".")[0]))


def tool_readings(record: SpanRecord) -> list[tuple[str, str]]:
    """(name, evidence) of every name the span gives a tool call, when any of its evidence says
    tool (a kind word, a `tool:` affix, a GenAI tool key), whether or not other evidence
    disagrees: the engine reads a span as a call of a restricted tool it names, so neither a
    disagreeing kind word nor another name attribute can hide one (docs/conventions.md)."""
    attrs = record.attributes
    affix = span_affix(record)
    by_name = affix is not None and affix[0] == TOOL
    prefixed = _tool_prefixed(record.name)
    if not (by_name or prefixed or "gen_ai.tool.name" in attrs or "gen_ai.tool.call.id" in attrs
            or any(kind == TOOL for kind, _, _ in _said(attrs)[0])):
        return []
    found = [(affix[1], BY_NAME)] if affix is not None and by_name else []
    if prefixed:
        found.append((prefixed, BY_NAME))
    found.extend((name, BY_ATTRIBUTE) for name in compiled.tool_names(attrs))
    return found


INPUT_SIDE = frozenset({"input", "prompt"})
OUTPUT_SIDE = frozenset({"output", "completion", "reply"})


def inferred_step(record: SpanRecord, state_attributes: Sequence[str], found: Inferred,
                  other: Step, core: compiled.Classifier) -> Step:
    """The Step of a span no entry matched, built from what `infer` found by the classifier's
    `core` (the field rules of every entry, the spec's declared agents); `other` is the `other`
    step the tables gave it, kept (with the name a candidate would take) when inference found
    no kind."""
    kind = found.kind
    if kind == OTHER:
        if found.evidence == CANDIDATE:
            # named by an agent-name key: it may run that agent, it is no tool's execution
            by_agent_key = found.name_key is not None and words(found.name_key)[-2:] == (
                "agent", "name")
            other.agent, other.tool = found.name, None if by_agent_key else found.name
            other.inferred = CANDIDATE
            if by_agent_key:
                own = _bare_name(record) or _last_crumb(clip(record.name.strip()))
                other.own_name = own if own != found.name else None
            if other.error is None:  # should the structure make it a run or a tool execution
                outcome(record, other)
        elif found.evidence == LIFECYCLE:
            other.own_name = found.name
        return other
    step = core.build(record, kind, list(state_attributes),
                      found.name if kind in (AGENT, WORKFLOW, LLM) else None,
                      found.name if kind == TOOL else None)
    step.inferred = found.evidence or ""
    # should the structure make it a run (`function_invocation x`), its OK status says it handled
    # what failed under it, as a run's span does (Step.settled)
    step.settled = record.status_code == STATUS_OK
    attrs = record.attributes
    if kind == LLM and found.evidence == BY_NAME:  # what it runs for, should it be a session
        step.own_name = _bare_name(record)
    if kind == LLM:
        if step.model is None:
            model = model_source(record)
            step.model = model[1] if model is not None else None
        if not step.input_tokens:
            count = tokens_source(attrs, INPUT_SIDE)
            step.input_tokens = count[1] if count is not None else 0
        if not step.output_tokens:
            count = tokens_source(attrs, OUTPUT_SIDE)
            step.output_tokens = count[1] if count is not None else 0
        if not step.requested_tools:
            step.requested_tools = requested_in_keys(attrs)
    if kind == AGENT and step.handoff_from is None:
        came = caller_source(attrs)
        step.handoff_from = came[1] if came is not None else None
    if kind == HANDOFF and step.handoff_to is None:
        left, reached = handoff_source(attrs, "from"), handoff_source(attrs, "to")
        step.handoff_from = left[1] if left is not None else None
        step.handoff_to = reached[1] if reached is not None else None
    if kind in (LLM, TOOL, AGENT, WORKFLOW) and step.error is None:
        outcome(record, step)
    return step


def _bare_name(record: SpanRecord) -> str | None:
    """The span name without its kind affix (`weather.chat` → `weather`), None where it has no
    affix or nothing is left."""
    affix = span_affix(record)
    return affix[1] if affix is not None and affix[1] else None


def outcome(record: SpanRecord, step: Step) -> None:
    """The failure of an inferred call or run no status said: a failure flag, else an exception
    event, whatever the status (the core's `outcome`), and the limit it signals; as a
    pinned entry's `error: [<flag>, {exception: true}]` reads it."""
    failed = failure_source(record.attributes)
    error, limit, _ = compiled.outcome(record, failed[1] if failed is not None else None)
    if error is not None:
        step.error, step.limit = error, limit


