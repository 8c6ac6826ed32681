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

from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache, wraps
from typing import TypeAlias, TypeVar

from .. import compiled
from ..records import STATUS_OK, SpanRecord
from .common import (
    PLACEHOLDER_AGENT_NAMES,
    PLACEHOLDER_TOOLS,
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
# GenAI keys saying a tool's call, an agent's run (the indexed `gen_ai.prompt.N.*` and
# `gen_ai.completion.N.*` keys say a model call too: the core reads them by their pattern)
_GENAI_TOOL = ("gen_ai.tool.name", "gen_ai.tool.call.id")
_GENAI_AGENT = ("gen_ai.agent.name", "gen_ai.agent.id")
_LLM_EVENTS = frozenset({"gen_ai.content.prompt", "gen_ai.content.completion", "gen_ai.choice",
                         "gen_ai.user.message", "gen_ai.system.message",
                         "gen_ai.assistant.message", "gen_ai.client.inference.operation.details"})


# an agent's span named by its label and then free text (a task, a question): the label, as the
# regex a pinned entry reads it by (the core reads the label so)
_LABEL_GROUP = r"([A-Za-z_][\w -]{0,63}?)\s*[.:].*\s.*"
# an agent managed through an API, not run (GenAI's `create_agent` operation: `create_agent`,
# `DeleteAgent`, `list agents`, or as an agents service's method, `Agent.get`, `agents.list`):
# the verb and the kind word are the whole name. Only the verbs
# an agents API names its operations by: a verb an agent's task is named by too (`fetch_agent`,
# `deploy_agent`, `build_agent`, `retrieve_agent`, `describe_agent`, `add_agent`: an agent that
# fetches, deploys) names that agent's run, read by its name as any `<name>_agent`
MANAGE_VERBS = ("create", "delete", "get", "list", "register", "new", "remove")
_LEADS = "-|>=~:\u2013\u2014"  # separators before a name (`Agent - weather`, `Agent | weather`)
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


# an HTTP request's keys (stable and older semconv): a span carrying one is a request, its name
# no Go function's (`api.openai.com/v1/chat.completions`: a client's span named by host and path)
_HTTP_KEYS = ("http.request.method", "http.method", "url.full", "http.url", "http.target")
GENAI_OPERATION = "gen_ai.operation.name"
# operations the kind words do not name; `create_agent` defines an agent, it runs nothing
_GENAI_OPERATIONS: Mapping[str, str] = {
    "create_agent": OTHER, "generate_content": LLM, "text_completion": LLM}
# an endpoint's span keyed by the scheme of the URI it calls, and the mark of the side sending to
# the endpoint (Camel's producer): of a tool endpoint, the route asking a model with the tool set
# the endpoint's consumers are (`to("langchain4j-tools:chat1?tags=weather")`), no tool's call;
# the path names the agent or tool (the span name is the component's, the path the instance's)
ENDPOINT_SCHEME, ENDPOINT_PATH = "url.scheme", "url.path"
ENDPOINT_SENDS = ("op", "EVENT_SENT")
# the URI option of a tool endpoint naming the tool its model is offered, where it is not the
# endpoint's path (`langchain4j-tools:users?name=QueryUserById`: the model calls QueryUserById)
ENDPOINT_QUERY, ENDPOINT_TOOL_OPTION = "url.query", "name"


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
    "agent": AGENT, "tool": TOOL, "llm": LLM, "workflow": WORKFLOW, "handoff": HANDOFF,
    "other": OTHER, "by_attribute": BY_ATTRIBUTE, "by_function": BY_FUNCTION, "by_name": BY_NAME,
    "by_genai": BY_GENAI, "candidate": CANDIDATE, "lifecycle": LIFECYCLE, "providers": _PROVIDERS,
    "genai_operation": GENAI_OPERATION, "genai_operations": _GENAI_OPERATIONS,
    "genai_tool_keys": _GENAI_TOOL, "genai_agent_keys": _GENAI_AGENT, "genai_llm": _GENAI_LLM,
    "llm_events": _LLM_EVENTS, "http_keys": _HTTP_KEYS, "agent_names": _AGENT_NAMES,
    "app_names": _APP_NAMES, "placeholder_tools": PLACEHOLDER_TOOLS, "label_group": _LABEL_GROUP,
    "manage_verbs": MANAGE_VERBS, "endpoint_scheme": ENDPOINT_SCHEME,
    "endpoint_path": ENDPOINT_PATH, "endpoint_query": ENDPOINT_QUERY,
    "endpoint_tool_option": ENDPOINT_TOOL_OPTION, "endpoint_sends": ENDPOINT_SENDS})
words = _short_cached(compiled.words)
tag_key = _short_cached(compiled.tag_key)
# a span name's kind affix, the name without it and the (glob, regex) pinning it: the glob and
# the regex byte for byte what Python's `glob_literal` and `re.escape` write
name_affix = _short_cached(compiled.name_affix)
go_function = _short_cached(compiled.go_function)
glob_literal, agent_name_ok = compiled.glob_literal, compiled.agent_name_ok
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
model_key_rank = compiled.model_key_rank


def model_source(record: SpanRecord) -> tuple[str, str] | None:
    """(key, model) of a model call's model under any vendor's key, else a numbered entity's
    typed a model, else its parameters', else from a `<provider>/<model>` span name (key
    MODEL_IN_NAME): the core's reading of the attributes and the name."""
    return compiled.model_source(record.attributes, record.name)


# The precedence that weighs one span's evidence is the core's too (core/src/inference_infer.rs;
# the oracle has its Python): `infer` the kind the span's own evidence gives (docs/
# conventions.md#inference: a lifecycle event's span, an endpoint's, kind words, the name's affix,
# GenAI keys, the name's sources, the closing guards), an `Inferred`; `kind_words` (key, kind
# word) of each attribute naming a kind (`explain` pins which one inference preferred);
# `tool_readings` (name, evidence) of every name the span gives a tool call when any of its
# evidence says tool, whether or not other evidence disagrees (the engine reads a span as a call
# of a restricted tool it names: neither a disagreeing kind word nor another name attribute can
# hide one); `_bare_name` the span name without its kind affix (`weather.chat` -> `weather`).
Inferred: TypeAlias = compiled.Inferred
infer = compiled.infer
kind_words, tool_readings = compiled.kind_words, compiled.tool_readings
_bare_name = compiled.bare_name


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


def outcome(record: SpanRecord, step: Step) -> None:
    """The failure of an inferred call or run no status said: a failure flag, else an exception
    event, whatever the status (the core's `outcome`), and the limit it signals; as a
    pinned entry's `error: [<flag>, {exception: true}]` reads it."""
    failed = failure_source(record.attributes)
    error, limit, _ = compiled.outcome(record, failed[1] if failed is not None else None)
    if error is not None:
        step.error, step.limit = error, limit


