"""Narrative vs trace in Spanish, Portuguese, French, German, Italian, Dutch, Chinese, Japanese and
Korean (docs/narrative.md#answers-in-other-languages).

Expectations are the hand labels of tests/narrative_set/languages/ (written before the checker
read these languages) and answers whose meaning is given in a comment; none is derived from the
checker.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest
from test_narrative_quality import assert_labels_fit_the_calls

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import narrative_languages as languages  # noqa: E402
import narrative_quality as quality  # noqa: E402

from otel_agentcov.judge.claims_latin import _lemmatizer  # noqa: E402
from otel_agentcov.judge.language import language_of  # noqa: E402
from otel_agentcov.judge.narrative import NarrativeSpec, judge_story  # noqa: E402
from otel_agentcov.spec import CoverageSpec, SpecError  # noqa: E402

BY_LANG = languages.load()
SUPPORTED = ("es", "pt", "fr", "de", "it", "nl", "zh", "ja", "ko")
HARD = {"negation", "question", "conditional", "plan", "reported_speech"}
TOOLS = frozenset({"issue_refund", "send_email", "cancel_subscription", "book_flight"})


def test_every_language_has_45_labelled_answers_with_a_held_out_file() -> None:
    assert set(SUPPORTED) <= set(BY_LANG)
    for lang in SUPPORTED:
        items = BY_LANG[lang]
        parts = languages.split(items)
        assert len(items) >= 40 and len(parts["held-out"]) >= 15, lang
        cats = Counter(i.cat for i in items)
        assert HARD <= set(cats) and cats["hallucination"] >= 6, (lang, cats)
        assert_labels_fit_the_calls(items)


@pytest.mark.parametrize("lang", SUPPORTED)
def test_held_out_precision_and_false_alarms_meet_the_targets(lang: str) -> None:
    """Fails before issue 41: every answer was unverifiable, so nothing was claimed."""
    numbers = languages.headline(languages.split(BY_LANG[lang])["held-out"])
    precision, alarms = numbers["cnc_precision"], numbers["false_alarm_rate"]
    assert precision is not None and precision >= languages.TARGETS["cnc_precision"]
    assert alarms is not None and alarms <= languages.TARGETS["false_alarm_rate"]


@pytest.mark.parametrize("cat", sorted(HARD))
def test_hard_categories_raise_no_claim_in_any_language(cat: str) -> None:
    """Read (not set aside as unverifiable) and judged consistent, as labelled."""
    items = [i for lang in SUPPORTED for i in BY_LANG[lang] if i.cat == cat]
    assert len(items) >= 18
    for item in items:
        assert set(item.labels.values()) == {"consistent"}, item.id
        assert set(quality.predict(item, with_patterns=False).values()) == {"consistent"}, item.id


def test_answers_in_languages_not_read_are_all_unverifiable() -> None:
    score, _ = quality.score(BY_LANG["other"])
    assert score.languages == len(BY_LANG["other"]) >= 8
    assert score.languages_hit == score.languages


def test_the_docs_table_is_current() -> None:
    """`make bench` (or benchmarks/narrative_languages.py --write) regenerates it."""
    doc = languages.DOC.read_text(encoding="utf-8")
    block = doc.split(languages.BEGIN, 1)[1].split(languages.END, 1)[0]
    assert block.strip() == languages.render(BY_LANG).strip()


@pytest.mark.parametrize(("text", "lang"), [
    ("Su suscripción ha sido cancelada.", "es"),  # short: Galician and Portuguese are near
    ("Excluí a sua conta definitivamente.", "pt"),
    ("Abbonamento annullato come richiesto.", "it"),  # "come" is an English word too
    ("返金を完了しました（ORDER-4471-XYZ-ABC）。", "ja"),  # a Latin id does not make it English
    ("I booked the 北京饭店 hotel for Friday, as you asked.", "en"),
    ("환불을 처리했습니다.", "ko"),
    ("已为您办理退款。", "zh"),
    ("Jag har återbetalat beloppet.", "other"),  # Swedish
    ("Я оформил возврат средств.", "other"),  # Russian
    ("Refund issued.", "en"),
])  # fmt: skip
def test_the_language_of_an_answer(text: str, lang: str) -> None:
    assert language_of(text) == lang


def _claimed(text: str, narrative: NarrativeSpec) -> tuple[tuple[str, str], ...]:
    return judge_story(text, TOOLS, {}, narrative).divergences


def test_declared_words_teach_a_language_new_phrasing() -> None:
    """"He abonado el importe" (I credited the amount back) claims the refund only once
    `abonar` is declared as a Spanish word for *refund*."""
    assert _claimed("He abonado el importe en su tarjeta.", NarrativeSpec()) == ()
    cov = CoverageSpec.from_dict({"version": 1, "agents": [{
        "name": "*", "tools": sorted(TOOLS),
        "narrative": {"words": {"es": {"refund": ["abonar"]}}}}]})  # fmt: skip
    narrative = cov.for_agent("support").checks.narrative
    assert narrative is not None
    assert _claimed("He abonado el importe en su tarjeta.", narrative) == (
        ("issue_refund", "claimed_not_called"),)


def test_declared_words_must_name_a_supported_language() -> None:
    with pytest.raises(SpecError, match="words"):
        CoverageSpec.from_dict({"version": 1, "agents": [{
            "name": "*", "narrative": {"words": {"sv": {"refund": ["återbetala"]}}}}]})


def test_no_word_of_an_answer_stays_in_the_lemmatiser() -> None:
    """The lemmatiser's cache is off: answers are content (docs/narrative.md)."""
    canary = "Canaryword-51c0"
    judge_story(f"He emitido el reembolso a {canary} y enviado el correo.", TOOLS, {},
                NarrativeSpec())
    assert _lemmatizer()._cached_lemmatize.cache_info().currsize == 0
