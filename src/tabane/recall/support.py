"""Support of what a question specifically asks: does any served item say it of the one asked?

A question about a person ("What is the name of Ann's tortoise?", "my dog", 湊の猫) asks for an
*attribute* (tortoise, dog, 猫) of an *entity* (Ann; the asker for I/my/私). Its nearest items
are often the other person's (Tom's tortoise), so no retrieval score tells an absent fact from a
present one (decision 0014). This check reads the items instead. The question's specific terms
are its words other than the names and a question's frame (what, name, 名前, a verb stem …). A
term is mentioned by English stem, by a word of four letters or more inside another ("boat" in
"houseboat"), by its kana run, or by a bigram of its kanji run; a mention is someone's by the
nearest person word before it in its sentence, else by whom the text the item answers marks it
for, else the item's speaker; a sentence that asks asserts nothing (`holds`). An item supports
the question when a term is the entity's in it or in what it answers (`check`).

When no item supports it, the bundle says so in one line ("Nothing remembered says 'tortoise'
of Ann."), the items that say it of someone else are taken out (pipeline.py `supported`), and
the trace and the explain twin name the terms and the verdict (decision 0029). Pure: it reads
the served items' text, kind, author and what they answer.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from tabane.recall.cite import DENSE
from tabane.recall.result import Evidence
from tabane.text.analyze import stem

_FIRST = re.compile(
    r"(?<![\w'])(i|i'm|i've|i'll|i'd|me|my|mine|myself|we|we're|we've|our|ours|us)(?![\w'])"
    "|私|僕|俺|わたし|あたし|ぼく"
)
_WORD = re.compile(r"[a-z0-9\u00c0-\u024f]+(?:'[a-z]+)?")
_KATAKANA = re.compile("[\u30a1-\u30ff\uff66-\uff9f]{2,}")
_HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3005]+")
# Words that frame a question rather than say what it asks about: question words, auxiliaries,
# pronouns, function words and the generic nouns and verbs of asking ("the name of", "what kind
# of", "how did it go").
_FRAME_WORDS = """
    a an the of to in on at for with from by about into onto over under after before since as
    and or but if than then so not no nor any some all each every both either neither
    what which who whom whose when where why how many much long often far old
    is are was were be been being am do does did done doing have has had having will would
    shall should can could may might must get gets got getting go goes went gone going
    i me my mine we us our you your yours he him his she her hers they them their theirs it its
    this that these those there here s t ever still now yet already just also too very really
    name names named called call kind kinds type sort thing things one ones
    tell say said think thought feel felt like
"""
_FRAME = frozenset(_FRAME_WORDS.split())
_FRAME_JA = ("名前", "何", "誰", "幾", "如何", "今", "現在", "最近", "結局")
# A lone kanji followed by kana that is not a particle is a verb or adjective stem (飼っている,
# 働いて): the frame of a Japanese question, as "keep" and "work" are not what it asks about.
_STEM_JA = re.compile(
    "(?<![\u3400-\u9fff])[\u3400-\u9fff]"
    "(?=(?![のがはをにへとでもやか])(?!い(?![\u3041-\u3093]))[\u3041-\u3093])"
)
_ASKS = re.compile(r"([?？][!！?？]*|か[。.]?)\s*$")
_SENTENCE = re.compile(r"[^.!?。！？\n]+[.!?。！？]*")
# Whose a term is, by the nearest person word before it in its sentence ("your tortoise", "my
# boat", "Tom's kayak", "You got to the top"): first person → the speaker, second → the one
# addressed, a name → that holder.
_PERSON = re.compile(
    r"(?<![\w'])(i|i'm|i've|i'd|i'll|me|my|mine|we|we're|we've|our|you|you're|you've|your|yours)"
    r"(?![\w'])"
)
_MIN_INSIDE = 4  # letters of a word that may match inside a longer one ("boat" ⊂ "houseboat")
# A question for someone's view ("What does Tom think of opera?", 大輔はパクチーをどう思う):
# its topic is nobody's possession, so an item of the entity's that mentions it, or answers a
# text that does, supports it whoever else the topic belongs to.
_OPINION = re.compile(
    r"(?<!\w)(think|thinks|thought|feel|feels|felt|opinion|view|views|like|likes|love|loves|"
    r"hate|hates|prefer|prefers)(?!\w)|思|感じ|好き|嫌い"
)


@dataclass(frozen=True)
class Asked:
    """Whom a question asks about and what: `entity` (holders, sorted), `terms` (its specific
    terms in their matching form) and `shown` (the same words as asked, for the bundle)."""

    entity: tuple[str, ...]
    terms: tuple[str, ...]
    shown: tuple[str, ...]


@dataclass(frozen=True)
class Support:
    """The check's verdict: `supported` (item keys about the entity with every needed term),
    `partial` (items that mention a term but fail the entity or the other terms), `line` (the
    bundle's sentence when nothing supports the pair, else None)."""

    asked: Asked
    supported: tuple[str, ...]
    partial: tuple[str, ...]
    line: str | None


def fold(text: str) -> str:
    """NFKC, case folding and katakana as hiragana: the form both sides are compared in."""
    out = unicodedata.normalize("NFKC", text).casefold()
    return "".join(chr(ord(c) - 0x60) if "\u30a1" <= c <= "\u30f6" else c for c in out)


def names(text: str, holders: Sequence[str]) -> set[str]:
    """The holders `text` names: a whole word in a script with spaces, anywhere in one without."""
    said = fold(text)
    out = set()
    for h in holders:
        key = fold(h).strip()
        if key and (
            key in said if DENSE.search(key) else re.search(rf"(?<!\w){re.escape(key)}(?!\w)", said)
        ):
            out.add(h)
    return out


def asked(question: str, asker: str | None, holders: Sequence[str]) -> Asked | None:
    """The entity and the specific terms of `question`; None when it names no holder (nor the
    asker in the first person) or has no specific term."""
    entity = names(question, holders)
    if not entity and asker and _FIRST.search(fold(question)):
        entity = {asker}
    if not entity:
        return None
    terms = specific(question, entity | set(holders))
    if not terms:
        return None
    return Asked(tuple(sorted(entity)), tuple(terms), tuple(terms.values()))


def specific(question: str, names: set[str]) -> dict[str, str]:
    """The question's specific terms without `names` (its words other than the names and the
    frame of a question): each term's matching form → the word as asked."""
    said = fold(question)
    for h in names:
        key = re.escape(fold(h).strip())
        said = re.sub(key + r"(?:'s|’s)?" + "(?:さん|くん|ちゃん|様|さま|先生)?", " ", said)
    terms: dict[str, str] = {}
    for w in _WORD.findall(said):
        w = w.removesuffix("'s")
        if w not in _FRAME and not w.isdigit() and len(w) > 1:
            terms.setdefault(stem(w), w)
    raw = unicodedata.normalize("NFKC", question)
    for h in names:
        raw = raw.replace(unicodedata.normalize("NFKC", h), " ")
    raw = _STEM_JA.sub(" ", raw)
    for run in _KATAKANA.findall(raw) + _HAN.findall(raw):
        for frame in _FRAME_JA:
            run = run.replace(frame, " ")
        for part in run.split():
            terms.setdefault(fold(part), part)
    return terms


def _at(term: str, shown: str, text: str) -> list[int]:
    """Where `text` (folded) mentions `term`: the character offsets of each mention."""
    said = fold(text)
    if DENSE.search(term):
        keys = [term]
        if len(term) > 2 and _HAN.fullmatch(term):  # a kanji run: any of its bigrams
            keys = [term[i : i + 2] for i in range(len(term) - 1)]
        return [m.start() for k in keys for m in re.finditer(re.escape(k), said)]
    w = shown.casefold()
    out = []
    for m in _WORD.finditer(said):
        x = m.group(0).removesuffix("'s")
        inside = (len(x) >= _MIN_INSIDE and x in w) or (len(w) >= _MIN_INSIDE and w in x)
        if stem(x) == term or inside:
            out.append(m.start())
    return out


def mentions(term: str, shown: str, text: str) -> bool:
    """Whether `text` mentions `term` (see the module's docstring for how)."""
    return bool(_at(term, shown, text))


@dataclass(frozen=True)
class Voice:
    """Who says a text and to whom: `speaker` (None: unknown), `addressed` (whom "you" means)."""

    speaker: str | None
    addressed: frozenset[str]
    holders: tuple[str, ...]


def holds(
    term: str,
    shown: str,
    text: str,
    voice: Voice,
    *,
    asking: bool = False,
    unmarked: set[str] | None = None,
) -> set[str]:
    """Whose `term` is, at each mention of it in a sentence of `text` (one that asks only with
    `asking`: a question asserts nothing, but sets the topic of its reply): the nearest person
    word before it in its sentence decides ("your tortoise": the one addressed; "my boat": the
    speaker; "Tom's boat": Tom), else `unmarked`, else whom the whole text is about."""
    said = fold(text)
    out: set[str] = set()
    for sentence in _SENTENCE.finditer(said):
        if not asking and _ASKS.search(sentence.group(0)):
            continue
        lo = sentence.start()
        for at in _at(term, shown, sentence.group(0)):
            near = _nearest(said[lo : lo + at], voice)
            out |= near or (unmarked if unmarked is not None else _whole(text, voice))
    return out


def _nearest(before: str, voice: Voice) -> set[str]:
    marks: list[tuple[int, set[str]]] = []
    for m in _PERSON.finditer(before):
        first = m.group(1).startswith(("i", "m", "w", "o"))
        marks.append((m.start(), _who(first, voice)))
    for m in re.finditer("私|僕|俺|わたし|あたし|ぼく|うちの", before):
        marks.append((m.start(), _who(True, voice)))
    for h in voice.holders:
        key = fold(h).strip()
        pattern = re.escape(key) if DENSE.search(key) else rf"(?<!\w){re.escape(key)}(?!\w)"
        for m in re.finditer(pattern, before) if key else ():
            marks.append((m.start(), {h}))
    return max(marks, key=lambda x: x[0])[1] if marks else set()


def _who(first: bool, voice: Voice) -> set[str]:
    if first:
        return {voice.speaker} if voice.speaker else set()
    return set(voice.addressed)


def _whole(text: str, voice: Voice) -> set[str]:
    named = names(text, voice.holders) - {voice.speaker}
    if named or voice.speaker is None:
        return named
    return {voice.speaker}


def voices(item: Evidence, holders: Sequence[str]) -> tuple[Voice, Voice]:
    """The voice of an item's text and that of what it answers (said by the other one of a
    conversation of two, to the item's speaker)."""
    author = item.author
    others = [h for h in holders if h != author]
    named = names(item.text, holders) - {author}
    addressed = frozenset(named or (others if len(others) == 1 else ()))
    own = Voice(author, addressed, tuple(holders))
    other = others[0] if len(others) == 1 and author else None
    return own, Voice(other, frozenset({author} if author else ()), tuple(holders))


def check(
    question: str,
    asker: str | None,
    items: Sequence[Evidence],
    *,
    need: float = 0.0,
    answers: Callable[[], Mapping[str, str]] = dict,
) -> Support | None:
    """Whether any item supports what `question` asks of whom it asks it (None: the question
    asks of nobody the items know, or nothing specific). An item supports it when more than
    `need` of the specific terms (0: any one) are the entity's in it or in what it answers
    (`answers()`: item key → that text, read only when the question asks something of someone;
    else its `in_reply_to`); a paragraph (nobody is known to
    have said it) when it mentions any of them. A summary (an overview, a community) holds a
    term only for whom it names there."""
    holders = sorted({it.author for it in items if it.author} | ({asker} if asker else set()))
    want = asked(question, asker, holders)
    if want is None:
        return None
    replied = answers()
    entity = set(want.entity)
    opinion = _OPINION.search(fold(question)) is not None
    supported, partial = [], []
    for it in items:
        if not it.author and it.kind == "paragraph":  # nobody said it: a mention supports
            if any(mentions(t, s, it.text) for t, s in zip(want.terms, want.shown, strict=True)):
                supported.append(it.key)
            continue
        own, other = voices(it, holders)
        before = replied.get(it.key) or it.in_reply_to or ""
        mine, seen = 0, False
        for t, s in zip(want.terms, want.shown, strict=True):
            whose = _whose(t, s, it, before, own, other)
            if opinion and it.author and not _ASKS.search(it.text):
                whose |= {it.author} if mentions(t, s, it.text + "\n" + before) else set()
            seen = seen or mentions(t, s, it.text)
            mine += bool(whose & entity)
        if mine and mine / len(want.terms) > need:
            supported.append(it.key)
        elif seen or mine:
            partial.append(it.key)
    line = None if supported else _line(want)
    return Support(want, tuple(supported), tuple(partial), line)


def _whose(t: str, s: str, it: Evidence, before: str, own: Voice, other: Voice) -> set[str]:
    """Whose term `t` is in an item and what it answers. A mention the item leaves unmarked
    belongs to whom the answered text marks it for ("my tortoise" — "Tortoises live long!");
    one the answered text leaves unmarked, to the item's speaker (a reply continues the topic
    it was asked about)."""
    if not before:
        return holds(t, s, it.text, own)
    marked = holds(t, s, before, other, asking=True, unmarked=set())
    reply = {it.author} if it.author and not _ASKS.search(it.text) else set()
    return holds(t, s, it.text, own, unmarked=marked or None) | holds(
        t, s, before, other, asking=True, unmarked=reply
    )


def _line(want: Asked) -> str:
    what = ", ".join(f"'{s}'" for s in want.shown)
    who = " and ".join(want.entity)
    return f"Nothing remembered says {what} of {who}."


def why_unsupported(got: Support | None) -> str:
    """Why the check took a served item out: the explain twin's detail."""
    if got is None or got.line is None:
        return "not served"
    terms, who = ", ".join(got.asked.shown), " and ".join(got.asked.entity)
    return (
        f"the support check: the question asks for [{terms}] of {who}; this item mentions it of "
        f"someone else and no served item says it of {who} ({got.line!r})"
    )
