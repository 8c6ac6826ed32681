"""Claims in Chinese, Japanese and Korean (docs/narrative.md), by written stems and cues.

No segmenter: the stems of an action ("退款", "返金", "환불") and of its objects are found as
written in a clause, and the clause must say the action is done (zh 了/已/完成, ja した/済み,
ko 했/었/됐) with no negation, plan, modal, attempt or condition in it, in a sentence that is no
question and reports nobody else's words and no failure. In Japanese and Korean a clause that
ends in a linking form ("予約し、…しました", "예약하고 … 보냈습니다") takes the tense of the
clause after it. Segmenters with dictionaries (jieba, janome, kiwipiepy: 20-80 MB, seconds to
load) would add little here: the cues are substrings, and a clause is short.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from .vocabulary import CJK, LanguageClaims, ToolWords

MAX_TEXT_CHARS = 64 * 1024
_SENTENCES = re.compile(r"(?<=[。！？!?])|\n+|(?<=[.])\s+")
_CLAUSES = re.compile(r"[，、,；;：:（）()]|\s-\s")


@dataclass(frozen=True, slots=True)
class Cues:
    """Substrings of one language; `ignore` is removed before the others are looked for."""

    ignore: tuple[str, ...]  # words holding a cue by chance (zh 为了, ja いたします)
    done: tuple[str, ...]  # the clause says it happened
    blocking: tuple[str, ...]  # negation, plan, modal, attempt, condition, habit
    sentence: tuple[str, ...]  # reported speech, failure
    questions: tuple[str, ...]  # a sentence ending so asks


CUES = {
    "zh": Cues(("为了", "了解", "除了", "不过"),
               ("了", "已", "完成", "完毕", "成功"),
               ("没", "未", "不", "无法", "别", "如果", "若", "假如", "要是", "的话", "一旦",
                "只要", "将", "会", "要", "打算", "计划", "准备", "可以", "能", "应", "需要", "想",
                "尝试", "试图", "通常", "一般"),
               ("说", "据", "表示", "称", "根据", "提到", "失败", "错误", "拒绝", "出错"),
               ("？", "?", "吗", "呢")),
    "ja": Cues(("いたし", "いただ"),
               ("ました", "でした", "した", "った", "済み", "済", "れた", "えた", "いた", "んだ"),
               ("ません", "ない", "なかった", "できず", "未", "たら", "れば", "えば", "なら",
                "場合", "予定", "つもり", "はず", "ようと", "ましょう", "できます", "通常",
                "べき"),
               ("によると", "によれば", "とのこと", "そうです", "と言", "とおっしゃ", "と聞",
                "失敗", "エラー", "拒否"),
               ("？", "?", "か。", "か")),
    "ko": Cues((),
               ("았", "었", "였", "했", "됐", "냈", "갔", "왔", "졌", "켰", "췄", "줬", "쳤", "봤",
                "렸", "웠", "겼", "혔", "셨", "완료"),
               ("않", "못", "안 ", "없", "아직", "면", "경우", "거든", "겠", "예정", "할 것",
                "할게", "드릴", "수 있", "려고", "어야", "야 했", "보통", "일반적"),
               ("따르면", "다고", "라고", "말씀", "들었", "실패", "오류", "거절", "거부"),
               ("？", "?", "까", "나요", "습니까")),
}  # fmt: skip
_LINKING = ("ja", "ko")  # a clause without a tense of its own takes the next clause's


class CjkClaims(LanguageClaims):
    """The claims of one tool set in one CJK language, compiled once (see `cjk_extractor`)."""

    def __init__(self, tools: Iterable[str], lang: str,
                 declared: Mapping[str, tuple[str, ...]]) -> None:  # fmt: skip
        super().__init__(tools, lang, declared)
        self.cues = CUES[lang]

    def claims(self, text: str) -> frozenset[str]:
        """The tools the text claims were done; linear in its length."""
        found: set[str] = set()
        for sentence in _SENTENCES.split(text[:MAX_TEXT_CHARS]):
            plain = _drop(sentence.strip(), self.cues.ignore)
            if not plain or plain.endswith(self.cues.questions):
                continue
            if any(c in plain for c in self.cues.sentence):
                continue
            found |= self._sentence([c for c in _CLAUSES.split(plain) if c.strip()])
        return frozenset(found)

    def _sentence(self, clauses: list[str]) -> set[str]:
        found: set[str] = set()
        after: bool | None = None  # the next clause's status: done (True), not (False)
        for clause in reversed(clauses):
            blocked = any(c in clause for c in self.cues.blocking)
            own = any(c in clause for c in self.cues.done)
            if blocked:
                status = False
            elif own:
                status = True
            else:  # "予約し、" takes the tense of what follows
                status = bool(after) and self.lang in _LINKING
            if status:
                found.update(r.tool for r in self.readings if self._reads(r, clause))
            after = status if (blocked or own) else after
        return found

    def _reads(self, r: ToolWords, clause: str) -> bool:
        acted = any(w in clause for w in r.action) or (
            bool(r.action_nouns) and any(w in clause for w in self.light)
            and any(n in clause for n in r.action_nouns))
        return acted and all(any(o in clause for o in forms) for forms in r.objects)


def _drop(text: str, words: tuple[str, ...]) -> str:
    for word in words:
        text = text.replace(word, " ")
    return text


@lru_cache(maxsize=256)
def cjk_extractor(tools: frozenset[str], lang: str,
                  declared: tuple[tuple[str, tuple[str, ...]], ...] = ()) -> CjkClaims:
    """The compiled claims of a tool set in `lang` (runs of one agent share it)."""
    assert lang in CJK
    return CjkClaims(tools, lang, dict(declared))


__all__ = ["CUES", "CjkClaims", "cjk_extractor"]
