"""What a tool's name says it does: the readings (verb, particle, object words) a claim can use.

`issue_refund` is *issue* + *refund*; `git_push` is *push* (the CLI prefix is optional);
`lookupOrder` is *look up* + *order*; `web_search` is *search* + *web*; `send_email` can also be
claimed as *emailed* (a denominal verb); a verb-less `weather` is claimed by *checked the weather*.
Inflections come from lemminflect (a maintained English lexicon shipped with its package, no
download at run time), so irregular and doubled forms need no hand-written tables.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .lexicon import inflect, inflections, lemmas

# Prefixes naming the program or namespace a tool drives, not what it does: optional in a claim.
CLI_PREFIXES = frozenset({
    "git", "gh", "kubectl", "k8s", "kube", "docker", "helm", "npm", "pip", "aws", "gcloud", "az",
    "db", "sql", "mcp", "api", "http", "fs", "os", "shell", "bash", "cli", "crm", "s3", "tool",
    "slack", "jira", "github", "gitlab", "stripe", "gmail", "drive", "calendar",
})  # fmt: skip
# Single-word phrasal verbs in tool names.
PHRASAL = {
    "lookup": ("look", "up"), "login": ("log", "in"), "logout": ("log", "out"),
    "setup": ("set", "up"), "backup": ("back", "up"), "checkout": ("check", "out"),
    "signup": ("sign", "up"), "rollback": ("roll", "back"), "shutdown": ("shut", "down"),
    "cleanup": ("clean", "up"), "pickup": ("pick", "up"), "followup": ("follow", "up"),
    "rollout": ("roll", "out"), "signin": ("sign", "in"), "checkin": ("check", "in"),
}  # fmt: skip
_VERB_PREFIXES = ("un", "re", "de", "dis", "pre", "co", "mis", "over", "under", "out", "auto")
PARTICLES = frozenset({"up", "down", "out", "back", "in", "off", "over"})
# Verbs that only carry their object (send an email = email, issue a refund = refund): the
# object's own verb claims the tool too.
LIGHT_VERBS = frozenset({"send", "issue", "give", "grant", "post", "make", "provide", "do"})
# Verbs that carry an action noun in a tool name (create_reservation, start_deployment): the
# noun's own verb claims the tool ("reserved", "deployed").
NOUN_CARRIERS = frozenset({"create", "perform", "trigger", "start", "run", "execute", "initiate",
                           "request", "submit", "process"})  # fmt: skip
# Suffixes of action nouns and the verb endings they come from: notification -> notify.
_DEVERBAL = (("ication", "y"), ("ation", "ate"), ("ation", "e"), ("ation", ""), ("ration", "er"),
             ("lation", ""), ("ssion", "t"), ("ion", "e"), ("ion", ""), ("ment", ""), ("al", "e"),
             ("al", ""), ("ure", "e"))  # fmt: skip
# Verbs named as nouns that an answer "runs" or "performs": "ran a search", "did a lookup".
ACTION_NOUNS = frozenset({"search", "query", "lookup", "scan", "check", "backup", "build",
                          "restart", "reboot", "test", "review", "audit", "sync", "export",
                          "import", "upgrade", "refresh", "rollback", "deploy", "cleanup"})
DOING_VERBS = ("run", "do", "perform", "conduct", "execute", "complete", "trigger")
# How a verb-less name (`weather`) is claimed: "checked / got / looked up the weather".
USE_VERBS = ("check", "get", "fetch", "look", "retrieve", "pull", "consult", "query")
# Short forms of object words that answers use.
ABBREVIATIONS = {"pr": ("pull", "request"), "prs": ("pull", "request"), "db": ("database",),
                 "kb": ("knowledge", "base")}
# Object words that only name a kind of thing: a claim need not repeat them ("I uploaded the
# contract" claims upload_file).
GENERIC_OBJECTS = frozenset({"file", "files", "data", "item", "items", "object", "objects",
                             "record", "records", "resource", "resources", "entity", "info",
                             "information", "details", "content", "document", "documents",
                             "service", "services", "app", "application"})
# Verbs too common to claim a tool without its object ("you wrote", "I read it"): their generic
# object words stay required.
COMMON_VERBS = frozenset({"write", "read", "get", "make", "put", "set", "run", "take", "give",
                          "find", "keep", "leave", "send", "open", "close", "show", "see",
                          "have", "do", "go", "use", "check", "add", "look", "say"})
# Verbs whose "re-" form means "again" (resent, reissued); refund, remove, review do not.
AGAIN = frozenset({"send", "issue", "submit", "run", "start", "boot", "deploy", "book",
                   "schedule", "sync", "index", "build", "open", "apply", "assign", "activate",
                   "enable", "install", "upload", "generate", "create", "calculate", "post",
                   "share", "process", "check", "verify", "charge", "invite", "notify", "load",
                   "write", "test", "try", "route", "queue", "import", "export"})
# Object words naming a person: a personal pronoun stands for them ("I unsubscribed you").
PERSONS = frozenset({"user", "users", "customer", "customers", "member", "members", "client",
                     "clients", "employee", "employees", "person", "people", "guest", "guests",
                     "attendee", "attendees", "participant", "participants", "subscriber",
                     "subscribers", "recipient", "recipients", "contact", "contacts"})
# Money object words, met by an amount ("transferred $1,500") or a word for money.
MONEY = frozenset({"fund", "funds", "money", "cash", "currency", "currencies", "deposit",
                   "payment", "amount", "sum", "balance", "$", "€", "£", "¥", "euros", "dollars",
                   "pounds", "usd", "eur", "gbp", "savings"})  # fmt: skip
# Built-in synonyms of common action verbs (`narrative: {synonyms: true}`): "processed the
# refund" claims issue_refund. Declared `claims:` patterns stay the way to cover domain phrasing.
SYNONYMS = {
    "issue": ("process", "complete", "handle", "finalize"), "create": ("open",),
    "delete": ("remove", "erase"),
    "book": ("reserve",), "reserve": ("book",), "cancel": ("terminate",),
    "update": ("change", "modify"), "restart": ("reboot",), "pay": ("settle",),
    "transfer": ("move", "wire"), "run": ("execute",), "remove": ("delete",),
    "verify": ("confirm",), "rollback": ("revert",), "deploy": ("release",),
    "get": ("fetch", "retrieve", "check", "pull"), "fetch": ("get", "retrieve", "pull"),
    "retrieve": ("get", "fetch"),
}  # fmt: skip
STOP_WORDS = frozenset({"a", "an", "the", "to", "of", "for", "by", "from", "in", "on", "with",
                        "and", "or", "at", "into", "as"})  # fmt: skip

_SPLIT_NAME = re.compile(r"__|[./:]")
_NAME_WORDS = re.compile(r"[A-Z]+(?=[A-Z][a-z]|[0-9]|\b|_)|[A-Z]?[a-z]+|[0-9]+")


@dataclass(frozen=True, slots=True)
class Reading:
    """One way a sentence can claim the tool: a form of `verb` (+ `particle`) with every object."""

    tool: str
    verb: str
    particle: str | None
    objects: tuple[frozenset[str], ...]  # each: the forms one object word may take
    article: bool = False  # "ran a search": the verb must be followed by a determiner


def name_words(tool: str) -> list[str]:
    """`issue_refund`, `issueRefund`, `issue-refund`, `crm.issue_refund` -> [issue, refund];
    a one-word phrasal verb is split: `lookup_order` -> [look, up, order]."""
    last = [p for p in _SPLIT_NAME.split(tool) if p][-1:] or [tool]
    words: list[str] = []
    for part in re.split(r"[-\s]+", last[0]):
        words.extend(w.lower() for w in _NAME_WORDS.findall(part))
    out: list[str] = []
    for word in words:
        out.extend(PHRASAL.get(word, (word,)))
    return out


@lru_cache(maxsize=4096)
def past_forms(verb: str) -> frozenset[str]:
    """Past tense and past participle of `verb` (lemminflect's lexicon, then its rules)."""
    forms: set[str] = set()
    for tag in ("VBD", "VBN"):
        forms.update(inflections(verb, "VERB").get(tag, ()))
        if not forms or tag == "VBN":
            forms.update(inflect(verb, tag))
    return frozenset(f.lower() for f in forms)


@lru_cache(maxsize=4096)
def is_verb(word: str) -> bool:
    """The lexicon knows `word` as a verb, or as a prefix and a verb (unsubscribe, deprovision)."""
    if inflections(word, "VERB"):
        return True
    return any(
        word.startswith(p) and len(word) - len(p) > 2 and bool(inflections(word[len(p):], "VERB"))
        for p in _VERB_PREFIXES
    )


@lru_cache(maxsize=4096)
def is_noun(word: str) -> bool:
    """The lexicon knows `word` as a noun."""
    return "NOUN" in lemmas(word)


@lru_cache(maxsize=4096)
def noun_forms(word: str) -> frozenset[str]:
    """An object word in the singular and plural: refund/refunds, policy/policies, tests/test."""
    lemma = lemmas(word).get("NOUN")
    base = lemma[0] if lemma else word
    forms = {word, base}
    for tag in ("NN", "NNS"):
        forms.update(inflections(base, "NOUN").get(tag, ()))
        forms.update(inflect(base, tag))
    return frozenset(f.lower() for f in forms)


@lru_cache(maxsize=4096)
def deverbal(noun: str) -> str | None:
    """The verb an action noun comes from (notification -> notify, deployment -> deploy)."""
    for suffix, ending in _DEVERBAL:
        if noun.endswith(suffix) and len(noun) > len(suffix) + 2:
            verb = noun[: -len(suffix)] + ending
            if verb != noun and is_verb(verb):
                return verb
    return None


def readings(tool: str, synonyms: bool = False) -> tuple[Reading, ...]:
    """Every reading of one tool's name (none for a name with no word); with `synonyms`, also
    those of the built-in synonyms of its verb."""
    words = [w for w in name_words(tool) if w not in STOP_WORDS]
    content = [w for w in words if w not in CLI_PREFIXES or len(words) == 1]
    if not content:
        return ()
    out: list[Reading] = []

    def add(verb: str, particle: str | None, objects: list[str], article: bool = False) -> None:
        optional = GENERIC_OBJECTS if verb not in COMMON_VERBS else frozenset()
        forms = tuple(MONEY if o in MONEY else noun_forms(o) for o in objects if o not in optional)
        out.append(Reading(tool, verb, particle, forms, article))
        if synonyms and particle is None:
            out.extend(Reading(tool, alt, None, forms) for alt in SYNONYMS.get(verb, ()))

    def split_particle(rest: list[str]) -> tuple[str | None, list[str]]:
        if rest and rest[0] in PARTICLES:
            return rest[0], rest[1:]
        return None, rest

    first, rest = content[0], content[1:]
    if is_verb(first):
        particle, objects = split_particle(rest)
        if synonyms and particle is not None:  # roll back -> revert
            for alt in SYNONYMS.get(first + particle, ()):
                out.append(Reading(tool, alt, None, tuple(noun_forms(o) for o in objects)))
        add(first, particle, objects)
        if first in LIGHT_VERBS:  # send_email: "emailed"; send_slack_message: "messaged … slack"
            for i, obj in enumerate(objects):
                if is_verb(obj):
                    add(obj, None, objects[:i] + objects[i + 1 :])
        if first in LIGHT_VERBS or first in NOUN_CARRIERS:  # send_notification: "notified"
            for i, obj in enumerate(objects):
                verb = deverbal(obj)
                if verb is not None:
                    add(verb, None, objects[:i] + objects[i + 1 :])
    if len(content) == 2 and is_verb(content[1]) and content[1] not in PARTICLES:
        add(content[1], None, content[:1])  # noun first: web_search, currency_convert
    for i, word in enumerate(content):  # "ran a search", "performed a restart of the pod"
        if word in ACTION_NOUNS and is_verb(word):
            for verb in DOING_VERBS:
                add(verb, None, [word, *content[:i], *content[i + 1 :]], article=True)
    if not any(is_verb(w) for w in content) or (len(words) == 1 and is_noun(first)):
        for verb in USE_VERBS:  # weather, stock_price
            add(verb, None, content)
    return tuple(out)


def code_names(tool: str) -> tuple[str, ...]:
    """The forms of the name written as code: the full name and its last namespace segment."""
    names = {tool}
    tail = [p for p in _SPLIT_NAME.split(tool) if p]
    if tail:
        names.add(tail[-1])
    return tuple(sorted(names))


__all__ = ["Reading", "code_names", "is_verb", "name_words", "noun_forms", "past_forms",
           "readings", "AGAIN", "GENERIC_OBJECTS", "MONEY", "PERSONS", "SYNONYMS"]  # fmt: skip
