"""The Python reading of inference's string readers, the oracle the compiled core is held equal to
(tests/test_inference_core.py); the package reads them with the core alone
(core/src/inference.rs, docs/core.md#inference-readers). The vocabulary is the package's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote_plus

import re2

from otel_agentcov.semconv.common import (
    MAX_COUNT,
    PLACEHOLDER_AGENT_NAMES,
    PLACEHOLDER_MODELS,
    PLACEHOLDER_TOOLS,
    as_str,
    clip,
    parse_json,
    short_error_name,
)
from otel_agentcov.semconv.inference import (
    _AGENT_NAMES,
    _APP_NAMES,
    _CALL_QUALIFIERS,
    _CALLS,
    _CAME_FROM,
    _CLIENT_CALLS,
    _CLIENT_OWNERS,
    _ERROR_LEVELS,
    _ERROR_WORDS,
    _EVERYDAY,
    _FALSE_VALUES,
    _GENAI_AGENT,
    _GENAI_LLM,
    _GENAI_OPERATIONS,
    _GENAI_TOOL,
    _HANDOFF_WORDS,
    _HTTP_KEYS,
    _KIND_KEY_ENDS,
    _KIND_QUALIFIERS,
    _LABEL_GROUP,
    _LEADS,
    _LLM_EVENTS,
    _LLM_OWNER,
    _MAX_PARAMETERS,
    _MAX_TAGS,
    _MODEL_KEYS,
    _NOT_KIND_KEYS,
    _OTHERS,
    _PROVIDER_WORDS,
    _PROVIDERS,
    _RAN_WORDS,
    _RECORD_WORDS,
    _REQUEST_SIDES,
    _RUNNING,
    _TAG_KEY_ENDS,
    _TOKEN_SIDES,
    _TOOL_NAMES,
    _VERB_OWNERS,
    _WEAK_WORDS,
    BY_ATTRIBUTE,
    BY_FUNCTION,
    BY_GENAI,
    BY_NAME,
    CANDIDATE,
    ENDPOINT_PATH,
    ENDPOINT_QUERY,
    ENDPOINT_SCHEME,
    ENDPOINT_SENDS,
    ENDPOINT_TOOL_OPTION,
    GENAI_OPERATION,
    KIND_WORDS,
    LIFECYCLE,
    MANAGE_VERBS,
    MODEL_IN_NAME,
    MODEL_MEMBER,
    OPERATION_VERBS,
    RUN_WORDS,
    Inferred,
    _short_cached,
)
from otel_agentcov.semconv.step import AGENT, HANDOFF, LLM, OTHER, TOOL, WORKFLOW

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


def _affix_kinds(affix: tuple[str, str, tuple[str, str]] | None) -> set[str]:
    """The kind a span-name affix says, if any."""
    return {affix[0]} if affix is not None and affix[0] else set()

# a `<provider>/<model>` span name, as the package read it before the core did
_MODEL_NAME = re.compile(r"^\s*([a-z][a-z0-9_-]{1,30})/([\w.:@-]{1,120})\s*$")

# digits glued to letters stay in their word (`ag2`, `k8s`: a vendor, not an index `x.entity.1`)
_WORD = re.compile(r"[A-Z]?[a-z][a-z0-9]*|[A-Z][A-Z0-9]*(?![a-z])|\d+[a-z0-9]*")
_CALL = re.compile(r"^\s*([A-Za-z_]\w{0,80})\.([A-Za-z_]\w{0,80})\(\)\s*$")
# an affix's separator: `.`, `:`, a space, or a path's `::` (`weather::run`, Rust's and C++'s)
_PREFIX = _linear(
    r"^\s*([A-Za-z][A-Za-z_ -]{0,30}?)\s*(?:::|[.:])\s*(.+?)\s*$"
    r"|^\s*(\S+(?:\s+(?i:agent|tool))?)\s+(.+?)\s*$")  # `Calling tool x`: a verb and its kind
_SUFFIX = _linear(
    r"^\s*(.+?)\s*(?:::|[.: ])\s*([A-Za-z_]{2,30})\s*$|^\s*(.+?)[_-](agent|tool)\s*$")
# a Go function's name as its runtime gives it: an import path (a host, then its path), then the
# package and the function or method (`github.com/acme/kit/agent.Run`, `pkg.(*Agent).Run`)
_GO_FUNCTION = re.compile(r"^\s*((?:[a-z0-9-]{1,63}\.){1,8}[a-z]{2,63}(?:/[\w.~-]{1,100}){0,16}/)"
                          r"([A-Za-z_]\w{0,63}\.[\w.()*]{1,100})\s*$")
# ... a method of one of the package's types (`agent.(*Agent).Run`, `tool.Tool.Call`)
_GO_METHOD = re.compile(r"^[A-Za-z_]\w*\.(?:\(\*?([A-Za-z_]\w*)\)|([A-Z]\w*))\.(.+)$")
_HTTP = re.compile(r"^\s*(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS|CONNECT|TRACE)\b|/")
# after a class's kind word, an instance and its method (`Agent.weather.attach_llm`)
_METHOD = re.compile(r"^([A-Za-z_]\w{0,63})(\.([a-z_][a-z0-9_]{1,40}))$")
# a name in quotes, then at most a word of what was done (`'weather' generate`)
_QUOTED = _linear(r"""^(')([^']{1,64})'(?:\s+[A-Za-z_]\w{0,30})?$"""
                  r"""|^(")([^"]{1,64})"(?:\s+[A-Za-z_]\w{0,30})?$""")
# a kind word, then a name in brackets (`Agent[weather]`, `tool(get_weather)`), or a name, then
# its kind word in brackets (`weather (agent)`, `get_weather [tool]`)
# (not in braces: `Agent {name}` is a message template's placeholder)
_BRACKETED = _linear(r"""^\s*([A-Za-z][\w -]{0,30}?)\s*[\[(<]\s*([^\[\](){}<>'"]{1,64}?)\s*"""
                     r"""[\])>]\s*$""")
_KIND_BRACKETED = _linear(r"""^\s*([^\[\](){}<>'"]{1,64}?)\s*[\[(<]\s*([A-Za-z][\w -]{0,30}?)\s*"""
                          r"""[\])>]\s*$""")
# a leading part that is a missing value formatted into the name (`null-weather`: no plugin)
_UNSET_PART = re.compile(r"(?i:null|none|undefined|nil)[-.:/_]")
# an event of a call's lifecycle recorded as a span: the call's dotted stem, a phase word (any
# case and separator), a qualifier and an index if any (`backend.openai.chat.start-1`,
# `tool.lookup.run.error-1`, `x.chat.on_end`: an emitter's or a callback's events)
_PHASE = _linear(r"^\s*((?:[A-Za-z_]\w{0,63}\.){1,8}[A-Za-z_]\w{0,63}?)(?:\.run)?\."
                 r"(?i:(?:on_?)?(?:start(?:ed)?|begin|finish(?:ed)?|success|succeeded|error|"
                 r"fail(?:ed|ure)?|end(?:ed)?|complete(?:d)?|new_?token|chunk))"
                 r"(?:\.custom)?(?:[-_]\d{1,6})?\s*$")
_PASCAL = r"[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)*"
_CLASS_METHOD = re.compile(rf"^\s*((?:[\w/-]+(?:\.|::))*)(?:\(\*?({_PASCAL})\)|({_PASCAL}))"
                           r"(?:\.|::)[A-Za-z_]\w*\s*$")


@_short_cached
def words(text: str) -> tuple[str, ...]:
    """`mlflow.spanType` -> (mlflow, span, type); `genkit:metadata:subtype` -> (..., subtype)."""
    return tuple(w.lower() for w in _WORD.findall(text))


@_short_cached
def _kind_key(key: str) -> tuple[str, ...] | None:
    """A kind-like key's words before its kind word (its vendor prefix), else None."""
    found = words(key)
    if found[-2:-1] and found[-2] in _KIND_KEY_ENDS and found[-1] in _KIND_QUALIFIERS:
        found = found[:-1]  # `ag.type.node`: the node's type
    if len(found) < 1 or found[-1] not in _KIND_KEY_ENDS:
        return None
    if any(w.isdigit() for w in found) and not _first_entry(found):
        return None
    if not _NOT_KIND_KEYS.isdisjoint(found[:-1]) or "gen_ai" in key:
        return None
    prefix = found[:-1]
    return prefix[:-1] if prefix[-1:] == ("span",) else prefix


@_short_cached
def tag_key(key: str) -> tuple[str, ...] | None:
    """A key holding a list of tags (`logfire.tags`, `tags`): its vendor prefix, else None."""
    found = words(key)
    return found[:-1] if found[-1:] and found[-1] in _TAG_KEY_ENDS else None


def _tag_kind(value: Any) -> tuple[str, str] | None:
    """(kind, the tag) when a list of tags names one kind: a tag that is a kind word (`LLM`),
    or a method of a kind word's class (`Tool.run()`)."""
    if not isinstance(value, (tuple, list)) or len(value) > _MAX_TAGS:
        return None
    found: dict[str, str] = {}
    for tag in value:
        call = _CALL.match(tag) if isinstance(tag, str) else None
        kind = _kind_word(call.group(1) if call is not None else tag)
        if kind is not None and isinstance(tag, str):
            found.setdefault(kind, tag)
    return next(iter(found.items())) if len(found) == 1 else None


def _first_entry(found: tuple[str, ...]) -> bool:
    """A kind key of a numbered list's first entry (`entity.1.type`: the span's own entity, the
    later ones those it works with); never an item of a list of calls or messages
    (`x.tool_calls.0.type`: plural, or a call's)."""
    return len(found) >= 3 and found[-2] in ("0", "1") and not any(
        w.isdigit() for w in found[:-2]) and not found[-3].endswith("s") and (
        _NOT_KIND_KEYS.isdisjoint(found) and "call" not in found)


def _kind_word(value: Any) -> str | None:
    """The kind a kind-like attribute's value names (`"TOOL"`, `chat_model`, `Agent`): a kind
    word, a kind word and a word saying only that one ran (`AGENT_EXECUTION`, `llm_request`),
    or a kind of agent or tool (`ReActAgent`, `FunctionTool`) where no word says another kind;
    the record's own class name too (`AgentSpan`, `ToolCallSpanData`)."""
    if not isinstance(value, str) or len(value) > 40:
        return None
    norm = _norm(value)
    kind = KIND_WORDS.get(norm)
    if kind is None and "." in value:  # a kind, then its provider (`agent.openai_agents`)
        kind = KIND_WORDS.get(_norm(value.split(".", 1)[0]))
    if kind is not None or "_" not in norm:
        return kind
    parts = norm.split("_")
    for record in _RECORD_WORDS:  # `AgentSpan`, `ToolSpanData`: the span's class names it
        if len(parts) > len(record) and tuple(parts[-len(record):]) == record:
            parts = parts[:-len(record)]
            break
    if len(parts) == 1 or "_".join(parts) in KIND_WORDS:
        return KIND_WORDS.get("_".join(parts))
    kinds = [KIND_WORDS.get(p) for p in parts]
    if len(parts) == 2 and kinds[0] is not None and parts[1] in _RAN_WORDS:
        return kinds[0]
    if len(parts) <= 3 and parts[-1] in ("agent", "tool") and {k for k in kinds if k} == {
            kinds[-1]}:
        return kinds[-1]
    return None


@_short_cached
def _norm(text: str) -> str:
    """`"CHAT_MODEL"` -> `chat_model`; `Tool Call` -> `tool_call`; `chatModel` -> `chat_model`."""
    return "_".join(words(text.strip().strip('"')))


def _affix_kind(word: str) -> str | None:
    """The kind a span name's affix says: a kind word, or `agent` or `tool` beside a verb saying
    only that it ran (`run_agent`, `call_tool`, `Running tool`), `workflow` beside one that it
    ran or started (`RunWorkflow`, `StartChildWorkflow`: a durable engine's)."""
    norm = _norm(word)
    kind = KIND_WORDS.get(norm)
    started = norm.split("_")[0] in ("start", *RUN_WORDS)
    if kind is None and norm.count("_") == 2 and norm.split("_")[1:] == ["child", "workflow"]:
        kind = KIND_WORDS["workflow"] if started else None  # `StartChildWorkflow`
    elif kind is None and norm.count("_") == 1:
        first, second = norm.split("_")
        if (first in _RAN_WORDS or first in RUN_WORDS or first in _RUNNING) and second in (
                "agent", "tool", "llm", "model"):  # `call_llm`, `invoke_model`: a model call
            kind = KIND_WORDS[second]  # not `execute_task`: a framework's step of any kind
        elif started and second == "workflow":  # `RunWorkflow`: a durable engine's
            kind = KIND_WORDS[second]
        elif first in _WEAK_WORDS and second in _RAN_WORDS:  # `function_invocation`: a
            kind = TOOL  # function ran (agent or tool alike: `infer` reads it as a function's)
    return kind


@_short_cached
def _usage_key(key: str) -> bool:
    """A token count of a model call under any vendor's key (`acme.tokens.prompt`); not one
    under an agent's key (`x.sub_agent.input_tokens`): an agent's totals, its calls' sum."""
    found = set(words(key))
    return bool(found & {"token", "tokens"}) and bool(found & _TOKEN_SIDES) and not any(
        w.isdigit() for w in found) and "agent" not in found


def _provider(value: Any) -> bool:
    """A model provider's name (`openai`, `aws.bedrock`, `gcp.vertex_ai`): what a model call's
    `gen_ai.system` says, not a tracer's own name put on every span (`galileo-otel`)."""
    return isinstance(value, str) and (_norm(value) in _PROVIDER_WORDS or not (
        _PROVIDER_WORDS.isdisjoint(words(value.lower()))))


def glob_literal(text: str) -> str:
    """A glob matching exactly `text` (its `*`, `?` and `[` escaped)."""
    return re.sub(r"[\[?*]", lambda m: f"[{m.group()}]", text)


def _class_verb(name: str, kind: str) -> bool:
    """A class's method named by an everyday verb that is also a kind word, the class none of
    that kind's (`ReportGenerator.generate`, `OrderService.complete`, `Ticket.transfer`): the
    app's own work; a model client's or an agent's (`ChatModel.generate`, `TriageAgent.transfer`)
    or a kind's own class (`Agent.generate`) keeps the kind."""
    owners = _VERB_OWNERS.get(kind)
    method = _CLASS_METHOD.match(name) if owners is not None else None
    if method is None or owners is None:
        return False
    owner, path = method.group(2) or method.group(3), method.group(1)
    if any(_affix_kind(w) is not None for w in words(path)):  # `tool.Bank.transfer`: the
        return False  # path's kind word reads the name as a kind's, as it did
    said = words(path + " " + owner)  # a package may say it (`llm.(*Client)`)
    joined = {"".join(said[i:j]) for i in range(len(said)) for j in range(i + 2, i + 4)}
    return _affix_kind(owner) is None and owners.isdisjoint(said) and owners.isdisjoint(
        joined)  # a provider's name in words (`OpenRouter`, `HuggingFacePipeline`)


def _bracketed(name: str) -> tuple[str, str, tuple[str, str]] | None:
    """`name_affix` of a name in brackets after an agent's or tool's kind word
    (`Agent[weather]`, `run_agent(weather)`), or of a name before its kind word in brackets
    (`weather (agent)`); other kinds' brackets (`ChatOpenAI(model)`) say nothing here."""
    for pattern, word_at, name_at in ((_BRACKETED, 1, 2), (_KIND_BRACKETED, 2, 1)):
        found = pattern.match(name)
        if found is not None and _affix_kind(found.group(word_at)) in (AGENT, TOOL):
            head, tail = name[:found.start(name_at)], name[found.end(name_at):]
            return _affix_kind(found.group(word_at)) or "", clip(found.group(name_at)), (
                glob_literal(head) + "*" + glob_literal(tail),
                re.escape(head) + "(.+)" + re.escape(tail))
    return None


def _last_crumb(name: str) -> str:
    """A span name that is a path of breadcrumbs (`AxGen > weather`: the program, then what it
    runs for) is named by its last."""
    last = name.rpartition(" > ")[2].strip()
    return last or name


def _tool_prefixed(name: str) -> str | None:
    """The name after a tool's kind word (`tool:lookup`), also where the name's own kind word
    reads the span otherwise (`tool:transfer` a hand-off, `tool:generate` a model call): should
    a tool of that name be restricted, the span is its call, whatever else its words say."""
    found = _PREFIX.match(name)
    if found is None:
        return None
    word, rest = (found.group(1), found.group(2)) if found.group(1) else found.group(3, 4)
    rest = rest.lstrip(_LEADS).strip()
    return clip(rest) if rest and _affix_kind(word) == TOOL else None


def agent_name_ok(name: str | None) -> bool:
    """A name an agent can have: not empty, a placeholder or a bare kind word (`agent`,
    `Agent`, `chain`), which is how frameworks name their own nodes, nor a kind word with a
    word saying only that it ran (`agent.query`, `Agent._run_internal`): a framework's method."""
    if name is None or not name or name in PLACEHOLDER_AGENT_NAMES or _norm(name) in KIND_WORDS:
        return False
    affix = name_affix(name)
    return affix is None or affix[1] != ""


def _code_path(name: str) -> bool:
    """A span named by the code it traces (`__main__._Agent.run`, `app.agents.Weather`): a
    module path or a private name, no name the user gave."""
    name = name.strip()
    parts = name.split(".")
    return name.startswith("_") or (len(parts) > 2 and all(p.isidentifier() for p in parts))


@_short_cached
def lifecycle_stem(name: str) -> str | None:
    """The call a lifecycle event recorded as a span belongs to (`x.chat.start-1` →
    `x.chat`), where that stem names a model call or a tool; None for any other name."""
    phase = _PHASE.match(name)
    stem = phase.group(1).removesuffix(".run") if phase is not None else None
    return stem if stem and _affix_kinds(name_affix(stem)) & {LLM, TOOL} else None


@_short_cached
def go_function(name: str) -> str | None:
    """The package and function of a Go function's qualified name (`github.com/acme/kit/
    agent.Run` -> `agent.Run`): what the name says, its import path only whose it is."""
    qualified = _GO_FUNCTION.match(name)
    return qualified.group(2) if qualified is not None else None


@_short_cached
def name_affix(name: str) -> tuple[str, str, tuple[str, str]] | None:
    """(kind, the name without its affix, (glob, regex with the name as `(.+)`)) when the span
    name carries a kind word as prefix or suffix (the name is "" when the span name is only a
    kind word); the kind is "" for a neutral `.run`. A name with a `/` (a route, a path, a
    `<provider>/<model>`) has no affix, unless it is a Go function's qualified name
    (`github.com/acme/kit/agent.Run`): its package and function say what a name would."""
    qualified = _GO_FUNCTION.match(name)
    method = _GO_METHOD.match(qualified.group(2)) if qualified is not None else None
    if method is not None:  # the type and its method say what ran, as a class's would
        found = name_affix(f"{method.group(1) or method.group(2)}.{method.group(3)}")
        if found is None or not found[0]:  # the package's word alone says nothing of it
            return None
        exact = name.strip()  # nor is the receiver's spelling any name
        return found[0], "", (glob_literal(exact), re.escape(exact))
    if qualified is not None:
        found = name_affix(qualified.group(2))
        if found is None:
            return None
        head = qualified.group(1)  # the import path names the library, never the operation
        return found[0], found[1], (glob_literal(head) + found[2][0],
                                    re.escape(head) + found[2][1])
    operation, slash, ran = name.strip().partition("/")
    if slash and operation.isidentifier() and ran.isidentifier() and (
            words(operation)[:1] and words(operation)[0] in OPERATION_VERBS):
        found = name_affix(ran)  # `run/call_model`: a task queue's operation, then what it ran
        if found is None:
            return None
        head = operation + "/"
        return found[0], found[1], (glob_literal(head) + found[2][0],
                                    re.escape(head) + found[2][1])
    if _HTTP.search(name):
        return None
    call = _CALL.match(name)
    if call is not None:  # `Agent.run()`, `GetWeather.try_run()`: a method by qualified name
        owner = call.group(1)
        tail = name.strip()[len(owner):]
        # an owner that is a kind word (the framework's class) names nothing; the method never
        of = KIND_WORDS.get(_norm(owner)) or (LLM if _LLM_OWNER & set(words(owner)) else "")
        if of:  # the class says the kind: only spans of that class (`ChatDriver.run()`) are it
            exact = name.strip()
            return of, "", (glob_literal(exact), re.escape(exact))
        return of, clip(owner), ("*" + glob_literal(tail), "(.+)" + re.escape(tail))
    whole = KIND_WORDS.get(_norm(name)) or _affix_kind(name)
    if whole is not None:  # `invoke_agent`, `tool`, `call_model`: a kind word and no name
        return whole, "", (glob_literal(name), re.escape(name))
    bracketed = _bracketed(name)
    if bracketed is not None:
        return bracketed
    found = _PREFIX.match(name)
    if found is not None:
        word, rest = (found.group(1), found.group(2)) if found.group(1) else found.group(3, 4)
        kind = _affix_kind(word)
        start = name.index(word)
        if kind is not None and rest and _norm(rest) in RUN_WORDS:  # `agent.query`: it ran
            return kind, "", (glob_literal(name), re.escape(name))
        if kind is not None and found.group(1) and rest.isidentifier():  # a class's method:
            # its own kind word says the kind (`Agent._execute_tool`), and one saying only that
            # it ran (`Agent._run_internal`, `Agent.run_stream`) says none: no name either way
            said = _affix_kind(rest)  # ... or a class's starting with its own kind word
            head = _norm(rest).split("_")[0]  # (`Chat.generateText`, not `llm.generate_x`)
            if (said is not None and said != kind) or rest.startswith("_") or (
                    head in RUN_WORDS) or (not word.islower() and KIND_WORDS.get(head) == kind):
                return said or kind, "", (glob_literal(name), re.escape(name))
            if kind == LLM and word.islower() and _norm(word) in _EVERYDAY and not any(
                    w in _CALLS or KIND_WORDS.get(w.removesuffix("s")) == LLM
                    for w in words(rest)):
                return None  # `chat.send_message`, `model.train`: a chat's, a data model's
                # method that calls no model (`model.generate_content`, `chat.stream` do; a
                # class of that name is an SDK's, `Chat.send_message` Google GenAI's call)
        if kind is not None and rest:
            rest = rest.lstrip(_LEADS).strip() or rest
            ran = _SUFFIX.match(rest)  # `agent:weather:run`: the run word after it says nothing
            if ran is not None and ran.group(1) and ran.group(2) in RUN_WORDS and not rest[
                    len(ran.group(1)):].lstrip().startswith("."):  # `db.query` is a name
                rest = ran.group(1)
            if rest.endswith("()") and len(rest) > 2:  # `tool: get_weather()`: a call of it
                rest = rest[:-2].rstrip()
            unset = _UNSET_PART.match(rest)  # `null-weather`: a missing part, formatted
            if unset is not None and len(rest) > unset.end():
                rest = rest[unset.end():]
            at = name.index(rest, start + len(word))
            head, end = name[start:at], name.rstrip()[at + len(rest):]
            method = _METHOD.match(rest) if found.group(1) else None
            if method is not None:  # `Agent.weather.call_tool`: a class, its instance, a method
                tail = method.group(2)  # whose own kind word, if any, says the span's kind
                return _affix_kind(method.group(3)) or kind, clip(method.group(1)), (
                    glob_literal(head) + "*" + glob_literal(tail),
                    re.escape(head) + "(.+)" + re.escape(tail))
            quoted = _QUOTED.match(rest)
            if quoted is not None:  # `Agent: 'weather' generate`: the quoted part names it,
                mark, named = quoted.group(1, 2) if quoted.group(1) else quoted.group(3, 4)
                return kind, clip(named), (  # what follows says what it did
                    glob_literal(head + mark) + "*",
                    re.escape(head + mark) + f"([^{mark}]+)" + re.escape(mark) + ".*")
            return kind, clip(rest), (glob_literal(head) + "*" + glob_literal(end),
                                      re.escape(head) + "(.+)" + re.escape(end))
    found = _SUFFIX.match(name)
    if found is not None:
        rest, word = (found.group(1), found.group(2)) if found.group(1) else found.group(3, 4)
        norm = _norm(word)
        kind = _affix_kind(word)
        if kind is None and (norm.split("_")[0] in RUN_WORDS or word.startswith("_")):
            kind = ""  # `weather.run`, `weather._execute_core`: a run of it, no kind
        if kind is not None and rest:
            tail = name.rstrip()[name.index(rest) + len(rest):]
            return kind, clip(rest), ("*" + glob_literal(tail), "(.+)" + re.escape(tail))
    return None


def _client_call(name: str) -> bool:
    """A model client's class (it or its package names a provider or a model server:
    `OpenAIClient`, `openai...AsyncCompletions`, `InferenceRouter`; a word people use of their
    own things too, `ChatService`, `ModelStore`, is not enough) and a method of it whose words
    only say it calls (`request_async`, `create`, `openai_chat_completion`): a model call traced
    by its code path, as a decorator tracing every method names it."""
    method = _CLASS_METHOD.match(name)
    if method is None:
        return False
    said = words(method.group(1) + " " + (method.group(2) or method.group(3)))
    joined = {"".join(said[i:j]) for i in range(len(said)) for j in range(i + 2, i + 4)}
    if _CLIENT_OWNERS.isdisjoint(said) and _CLIENT_OWNERS.isdisjoint(joined):
        return False
    verb = words(name.strip().rsplit(".", 1)[-1].rsplit("::", 1)[-1])
    return bool(verb) and not _CLIENT_CALLS.isdisjoint(verb) and all(
        w in _CLIENT_CALLS or w in _CALL_QUALIFIERS or w in _PROVIDER_WORDS for w in verb)


def span_affix(name: str, http: bool) -> tuple[str, str, tuple[str, str]] | None:
    """`span_affix` of a span named `name`, `http` whether it carries an HTTP request's key."""
    if go_function(name) is not None and http:
        return None
    found = name_affix(name)
    said = LLM if found is None and _client_call(name) else (
        _step_of(name) if found is None else None)
    if said is not None:
        exact = name.strip()
        return said, "", (glob_literal(exact), re.escape(exact))
    return None if found is not None and _class_verb(name, found[0]) else found


def _step_of(name: str) -> str | None:
    """The kind of a step named by a kind phrase of two or more words and a word saying it ran
    (`_model_call_step`, `tool_call_run`: a durable engine's step wrapping that call); not one
    word and a run word (`agent_step` is a step of an agent's, no run)."""
    parts = _norm(name).split("_")
    if len(parts) < 3 or (parts[-1] not in RUN_WORDS and parts[-1] not in _RAN_WORDS):
        return None
    kind = KIND_WORDS.get("_".join(parts[:-1]))
    return kind if kind in (LLM, TOOL) else None


# ---- the readers of one span's attributes (core/src/inference_attrs.rs)

def model_source(attrs: Mapping[str, Any], span_name: str) -> tuple[str, str] | None:
    """(key, model) of a model call's model under any vendor's key, else from a
    `<provider>/<model>` span name (key MODEL_IN_NAME)."""
    for tail in _MODEL_KEYS:
        for key, value in attrs.items():
            found = words(key)
            if found[-len(tail):] == tail and isinstance(value, str) and not any(
                    w.isdigit() for w in found):
                name = as_str(value.strip().strip('"'))
                if name and name not in PLACEHOLDER_MODELS:
                    return key, clip(name)
    typed = _model_entity(attrs) or model_in_parameters(attrs)
    if typed is not None:
        return typed
    model = _MODEL_NAME.match(span_name)  # not an operation and what it ran (`run/call_model`)
    if model is None or words(model.group(1))[:1] and words(model.group(1))[0] in OPERATION_VERBS:
        return None
    return MODEL_IN_NAME, clip(model.group(2))


def model_key_rank(key: str) -> int:
    """Where `model_source` reads a model key among a span's keys: the entry naming several
    reads them in this order, as inference does."""
    found = words(key)
    return next((i for i, tail in enumerate(_MODEL_KEYS) if found[-len(tail):] == tail),
                len(_MODEL_KEYS))


def model_in_parameters(attrs: Mapping[str, Any]) -> tuple[str, str] | None:
    """(key, model) from a call's parameters, the model a failed call asked for when nothing
    else names it (no response came back): configuration, not content."""
    for key, value in attrs.items():
        # a call's parameters as a JSON object (`llm.invocation_parameters`)
        if isinstance(value, str) and value[:1] == "{" and len(value) <= _MAX_PARAMETERS and (
                words(key)[-1:] == ("parameters",)):
            parameters = parse_json(value)
            name = as_str(parameters.get(MODEL_MEMBER)) if isinstance(parameters, dict) else None
            if name and name not in PLACEHOLDER_MODELS:
                return key, clip(name.strip())
    return None


def _model_entity(attrs: Mapping[str, Any]) -> tuple[str, str] | None:
    """(key, model) from a numbered list's entity typed a model (`x.entity.2.type:
    model.llm.gpt-4o` beside `x.entity.2.name: gpt-4o`)."""
    for key, value in attrs.items():
        found = words(key)
        if len(found) >= 3 and found[-1] == "type" and found[-2].isdigit() and isinstance(
                value, str) and _norm(value.split(".", 1)[0]) == "model":
            name_key = key[: -len("type")] + "name"
            name = as_str(attrs.get(name_key))
            if name and name not in PLACEHOLDER_MODELS:
                return name_key, clip(name.strip())
    return None


def tokens_source(attrs: Mapping[str, Any], side: frozenset[str]) -> tuple[str, int] | None:
    """(key, count) of a token count on one side (input or output) under any vendor's key."""
    for key, value in attrs.items():
        found = set(words(key))
        if {"token", "tokens"} & found and side & found and isinstance(value, int) and not (
                isinstance(value, bool)) and 0 <= value <= MAX_COUNT:
            return key, value
    return None


def failure_source(attrs: Mapping[str, Any]) -> tuple[str, str] | None:
    """(key, error) of a failure flag (`failure.source: tool`, `x.error: true`,
    `x.error.type: Timeout`, a level `x.level: ERROR`): the error's type where the key names
    one, else `_OTHER`."""
    for key, value in attrs.items():
        found = words(key)
        if found[-1:] == ("level",) and isinstance(value, str) and (
                value.strip().lower() in _ERROR_LEVELS):  # a log level on the span
            return key, "_OTHER"
        if _ERROR_WORDS.isdisjoint(found) or key == "error.type":
            continue
        if value is True:
            return key, "_OTHER"
        text = value.strip() if isinstance(value, str) else None
        if not text or text.lower() in _FALSE_VALUES:
            continue
        if found[-1] in ("type", "class", "name"):
            return key, short_error_name(text)
        if len(text) <= 40 or found[-1] in _ERROR_WORDS or (
                found[-1] == "message" and found[-2:-1] and found[-2] in _ERROR_WORDS):
            # a short value flags it; the error's own message (`x.log.error`, `x.error.message`)
            # does at any length (`x.error_policy` holds no error)
            return key, "_OTHER"
    return None


def handoff_source(attrs: Mapping[str, Any], end: str) -> tuple[str, str] | None:
    """(key, agent) of the agent a hand-off leaves (`end` "from") or reaches ("to") under any
    vendor's key (`x.handoff.to`, `x.transfer.to_agent`)."""
    for key, value in attrs.items():
        found = words(key)
        if end in found[-2:] and not _HANDOFF_WORDS.isdisjoint(found) and isinstance(
                value, str) and 0 < len(value.strip()) <= 256:
            return key, clip(value.strip().strip('"'))
    return None


def caller_source(attrs: Mapping[str, Any]) -> tuple[str, str] | None:
    """(key, agent) an agent's span names as the agent that handed over to it
    (`x.from_agent`, `x.previous.agent.name`, `x.caller_agent`): a hand-off to this run."""
    for key, value in attrs.items():
        found = words(key)
        if found[-1:] in (("agent",), ("name",), ("label",)) and "agent" in found and not (
                _CAME_FROM.isdisjoint(found)) and isinstance(value, str) and (
                0 < len(value.strip()) <= 256):
            return key, clip(value.strip().strip('"'))
    return None


def requested_in_keys(attrs: Mapping[str, Any]) -> tuple[str, ...]:
    """Tool names the model asked for, from indexed output keys
    (`gen_ai.completion.0.tool_calls.0.name`, `llm.output_messages.0...tool_call.function.name`):
    names only, the arguments beside them are never read."""
    names: list[str] = []
    for key, value in attrs.items():
        if not isinstance(value, str) or not value or len(value) > 256:
            continue
        found = words(key)
        if found[-1:] == ("name",) and "tool" in found and ("call" in found or "calls" in found):
            if not _REQUEST_SIDES.isdisjoint(found) and value not in names:
                names.append(clip(value))
    return tuple(names)


def _name_key(key: str, tails: tuple[tuple[str, ...], ...]) -> bool:
    """Whether a key (its `words`) holds a name ending so: not an indexed one, a user's, another
    span's (`x.last.agent.name`, `x.from.agent`), or OpenTelemetry's `code.function.name` (the
    instrumented function, never the tool)."""
    found = words(key)
    return any(found[-len(t):] == t for t in tails) and not any(
        w.isdigit() or w in _OTHERS for w in found) and not key.startswith("code.")


def tool_names(attrs: Mapping[str, Any]) -> list[str]:
    """The names the keys holding a tool's name give it (`tool_readings`' by attribute)."""
    return [clip(value.strip().strip('"')) for key, value in attrs.items()
            if isinstance(value, str) and 0 < len(value) <= 256 and _name_key(key, _TOOL_NAMES)]


# ---- inference's precedence (core/src/inference_infer.rs): `infer` and its readers

# a name that is a message template's placeholder (`Agent run: {name!r}`): the name is that key's
_PLACEHOLDER = re.compile(r"^\{([A-Za-z_][\w.]{0,80})(?:![rsa])?(?::[^{}]*)?\}$")
# an agent's span named by its label and then free text (a task, a question): the label
_LABEL = _linear(f"^{_LABEL_GROUP}$")
_SUBJECT = re.compile(r"^[\w.-]{1,64}$")  # a name an operation ran for: one word, no path
# a class's own method building or tearing down its object (`Agent.init`, `Agent.close`), no
# run of it (an instance's, `Agent.billing.initialize`, is read as the instance's span)
_SETS_UP = re.compile(r"^\s*[A-Za-z_]\w{0,80}\.(?i:_*init_*|initiali[sz]e|setup|set_up|configure|"
                      r"build|create|close|shutdown|cleanup|teardown|reset|load|register|new)\s*$")
# an agent managed through an API, not run (`create_agent`, `DeleteAgent`, `agents.list`)
_VERBS = "(?i:" + "|".join(MANAGE_VERBS) + ")"
_MANAGES = re.compile(rf"^\s*(?:{_VERBS}[\s_.:-]?(?i:agents?)|(?i:agents?)(?:[.:]|::){_VERBS})\s*$")
_INDEXED = re.compile(r"gen_ai\.(?:prompt|completion)\.\d+\.")
# the core reads every name and key as `clip` does (a lone surrogate as `?`), as the package's
# readers did before it


def _lossy(text: str) -> str:
    return text if text.isascii() else text.encode("utf-8", "replace").decode("utf-8")


def record_affix(record: Any) -> tuple[str, str, tuple[str, str]] | None:
    """`name_affix` of the span's name, but none for a request's span named as a Go function
    is: its HTTP keys say the name is a URL, which names no operation."""
    http = any(key in record.attributes for key in _HTTP_KEYS)
    return span_affix(_lossy(record.name), http)


def _named(attrs: Mapping[str, Any], tails: tuple[tuple[str, ...], ...],
           prefix: tuple[str, ...] | None) -> tuple[str, str] | None:
    """(key, name) of the first attribute whose words end in one of `tails`, else the kind
    key's own `name`, else its own `path`."""
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


def genai_kind(record: Any) -> tuple[str, str | None] | None:
    """GenAI evidence without a table, (kind, the key that says so: None for an event or a
    span name): a tool's keys, a model call's, an agent's, then usage alone."""
    attrs = record.attributes
    operation = attrs.get(GENAI_OPERATION)
    if isinstance(operation, str) and len(operation) <= 40:
        kind = _GENAI_OPERATIONS.get(operation) or _affix_kind(_lossy(operation))
        return (kind, GENAI_OPERATION) if kind is not None else (OTHER, None)
    for key in _GENAI_TOOL:
        if key in attrs:
            return TOOL, key
    for key in _GENAI_LLM[:2]:
        if key in attrs:
            return LLM, key
    if any(_INDEXED.match(k) for k in attrs) or any(n in _LLM_EVENTS for n, _ in record.events):
        return LLM, None
    for key in _GENAI_AGENT:
        if key in attrs:
            return AGENT, key
    for key in _GENAI_LLM[2:]:
        if key in attrs and (key not in _GENAI_LLM[-2:] or _provider(attrs[key])):
            return LLM, key
    usage = next((k for k in attrs if _usage_key(k)), None)
    if usage is not None:
        return LLM, usage
    found = _MODEL_NAME.match(_lossy(record.name))
    if found is not None and found.group(1) in _PROVIDERS:
        return LLM, None
    return None


def said(attrs: Mapping[str, Any]) -> tuple[list[tuple[str, str, str]], tuple[str, ...] | None]:
    """(kind, key, value) of each kind attribute naming a kind, and the first one's vendor
    prefix (where its own `name` key would be)."""
    found: list[tuple[str, str, str]] = []
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
            found.append((kind, key, value))
            prefix = vendor if prefix is None else prefix
    return found, prefix


def kind_words(attrs: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(key, kind word) of each attribute naming a kind."""
    return [(key, value) for _, key, value in said(attrs)[0]]


def _name(record: Any, kind: str, bare: str | None,
          prefix: tuple[str, ...] | None) -> tuple[str, str] | None:
    """(key, name) from the attributes, or None where the span name is the name."""
    own = _norm(bare or record.name)
    generic = not own or own in KIND_WORDS or own.split("_")[0] in RUN_WORDS or (
        own == _norm(record.scope_name.split(".")[0]))
    attrs = record.attributes
    if kind == AGENT or (kind in (WORKFLOW, OTHER) and generic):
        named = _named(attrs, _AGENT_NAMES, prefix)
        if named is None and kind == OTHER:
            named = _named(attrs, _TOOL_NAMES, prefix)
        return named
    if kind in (OTHER, LLM):
        return _named(attrs, _AGENT_NAMES[:1], None)
    return _named(attrs, _TOOL_NAMES, prefix) if kind == TOOL else None


def _placeholder(record: Any, bare: str | None) -> tuple[str, str] | None:
    """(key, name) when the name is a template placeholder naming a string attribute."""
    found = _PLACEHOLDER.match((bare or record.name).strip())
    value = record.attributes.get(found.group(1)) if found is not None else None
    if found is None or not isinstance(value, str) or not value.strip() or len(value) > 256:
        return None
    return found.group(1), clip(value.strip().strip('"'))


def _own_key(record: Any) -> tuple[str, str] | None:
    """(key, name) of the attribute naming what the span name says it is (`guard.name` on a
    span named `guard`)."""
    key = record.name.strip() + ".name"
    value = record.attributes.get(key)
    if not isinstance(value, str) or not _SUBJECT.match(value.strip()):
        return None
    return key, clip(value.strip())


def _subject(record: Any) -> tuple[str, str] | None:
    """(key, name) when one attribute says `<span name> <subject>` and another holds that
    subject alone: what the operation ran for names it."""
    head = record.name.strip() + " "
    attrs = record.attributes
    subjects = {v[len(head):].strip() for v in attrs.values()
                if isinstance(v, str) and v.startswith(head) and len(v) <= len(head) + 64}
    if not subjects:
        return None
    return next(((key, value) for key, value in attrs.items()
                 if isinstance(value, str) and value in subjects and _SUBJECT.match(value)), None)


def _endpoint(record: Any) -> Inferred | None:
    """A span named by the scheme of the URI it calls, a scheme saying an agent or a tool, is
    that kind, named by the path (a tool's by the tool name its URI gives the model); a tool
    endpoint's sending side is the chat offering its tools, no tool."""
    attrs = record.attributes
    scheme, path = attrs.get(ENDPOINT_SCHEME), attrs.get(ENDPOINT_PATH)
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
                    name_key=ENDPOINT_PATH)


def _query_option(query: Any, option: str) -> str | None:
    """The first value of `option` in a URI's query string (`a=1&name=x`), decoded."""
    if not isinstance(query, str):
        return None
    prefix = option + "="
    return next((unquote_plus(part[len(prefix):]) for part in query.split("&")
                 if part.startswith(prefix)), None)


def infer(record: Any) -> Inferred:
    """The kind the span's own evidence gives (docs/conventions.md#inference)."""
    stem = lifecycle_stem(record.name)
    if stem is not None:
        return Inferred(OTHER, LIFECYCLE, name=stem)
    endpoint = _endpoint(record)
    if endpoint is not None:
        return endpoint
    found_said, prefix = said(record.attributes)
    affix = record_affix(record)
    if affix is not None and affix[0] and not affix[1] and (
            genai_kind(record) or ("", ""))[0] == affix[0]:
        affix = None  # a bare kind word (`completion`) says what GenAI keys say, and less
    kinds = {k for k, _, _ in found_said}
    if affix is not None and affix[0]:
        kinds.add(affix[0])
    if len(kinds) > 1:  # a type over its own subtype (`span.subtype: tool_call`: the output's)
        found_said = [t for t in found_said if words(t[1])[-1:] != ("subtype",) or (
            t[1][: -len("subtype")] + "type") not in record.attributes] or found_said
        kinds = {k for k, _, _ in found_said} | _affix_kinds(affix)
    if len(kinds) > 1:  # the span's own type over a type its context carries (`entity.type`)
        own = [t for t in found_said if "span" in words(t[1])]
        if own and len({k for k, _, _ in own} | _affix_kinds(affix)) == 1:
            found_said, kinds = own, {own[0][0]}
    if kinds == {TOOL, HANDOFF}:  # a hand-off is a tool call that transfers: the narrower word
        found_said = [s for s in found_said if s[0] == HANDOFF]
        kinds = {HANDOFF}
    pattern = affix[2] if affix is not None else None
    if len(kinds) > 1:
        what = ", ".join(f"{k}={v!s:.40}" for _, k, v in found_said)
        where = f"span name {record.name[:60]!r}" if affix is not None and affix[0] else ""
        return Inferred(OTHER, None, conflict=f"kind words disagree: {what} {where}".strip(),
                        affix=pattern)
    key: str | None = None
    value: str | None = None
    if found_said:
        kind, key, value = found_said[0]
        weak = all(_norm(v) in _WEAK_WORDS for _, _, v in found_said) and not (
            affix and affix[0])
        evidence = BY_FUNCTION if weak else BY_ATTRIBUTE
    elif affix is not None and affix[0]:  # a function that ran (`function_invocation x`)
        ran = words(affix[2][0])[:2]
        weak = len(ran) == 2 and ran[0] in _WEAK_WORDS and ran[1] in _RAN_WORDS
        kind, evidence = affix[0], BY_FUNCTION if weak else BY_NAME
    else:
        genai = genai_kind(record)
        if genai is not None and genai[0] == OTHER:
            return Inferred(OTHER, None)  # an operation that runs nothing (`create_agent`)
        kind, key = genai if genai is not None else (OTHER, None)
        evidence = BY_GENAI if genai is not None else CANDIDATE
        if key == GENAI_OPERATION:  # its value told the kind: pinned by value
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
            found.name, record.scope_name):  # the library's own agent class names no agent
        return Inferred(OTHER, CANDIDATE)
    if kind == AGENT and (_SETS_UP.match(record.name) or _MANAGES.match(record.name)):
        return Inferred(OTHER, None)  # an agent object built or torn down, or created
    if kind == AGENT and evidence == BY_NAME and found.name_key is not None and (
            caller_source(record.attributes) is not None):
        return Inferred(OTHER, None)  # the switch between two runs, no run of its own
    if kind == AGENT and (not agent_name_ok(found.name) or (
            found.name_key is None and (bare == "" or _code_path(bare or record.name)))):
        return Inferred(OTHER, CANDIDATE, name=found.name, name_key=found.name_key)
    return found


def _library_class(name: str | None, scope: str) -> bool:
    """A name that is the tracing library's own name and a kind word (`LettaAgent` from the
    scope `letta.otel.tracing`): the library's class, no user's."""
    found = words(name or "")
    own = [w for w in found if w not in KIND_WORDS]
    return bool(own) and len(own) < len(found) and own == list(words(scope.split(".")[0]))


def tool_readings(record: Any) -> list[tuple[str, str]]:
    """(name, evidence) of every name the span gives a tool call, when any of its evidence says
    tool, whether or not other evidence disagrees."""
    attrs = record.attributes
    affix = record_affix(record)
    by_name = affix is not None and affix[0] == TOOL
    prefixed = _tool_prefixed(_lossy(record.name))
    if not (by_name or prefixed or any(key in attrs for key in _GENAI_TOOL)
            or any(kind == TOOL for kind, _, _ in said(attrs)[0])):
        return []
    found = [(affix[1], BY_NAME)] if affix is not None and by_name else []
    if prefixed:
        found.append((prefixed, BY_NAME))
    found.extend((name, BY_ATTRIBUTE) for name in tool_names(attrs))
    return found


def bare_name(record: Any) -> str | None:
    """The span name without its kind affix, None where it has no affix or nothing is left."""
    affix = record_affix(record)
    return affix[1] if affix is not None and affix[1] else None
