"""Navigation questions: "where do I find X?", "where is X documented?",
"X はどこに書いてありますか", "wo finde ich X?" — a question answered by a document, not by a
passage (issue 34, item 2).

`navigation(question)` is deterministic (patterns, no model): it says whether the question asks
where something is written down, which phrase said so (`cue`), the subject the catalog search is
asked (`subject`: the question without its navigation phrasing, its surface words and its
function words) and the surface it names (`facet`: docs, settings, command, example, file),
or None. recall then runs the catalog search (search/catalog/catalog.py `rank`, the same
function `search_catalog` runs) for the subject as the `navigation` lane (gather.py).

A bare location question is not navigation: "Where is the meeting?", "Where does Anna live?",
"会議はどこで開かれますか", "Wo wohnt Anna?" ask about the world, and the notes that answer them are
passages. A question is navigation only when it pairs "where" with finding or reading ("where
do I find", "where can I read up on", "どこを見れば", "wo finde ich"), with a verb of writing
down ("documented", "described", "書いてある", "載っている", "dokumentiert", "steht"), or asks
which document, page or section covers something.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

# The surfaces a question can name, by the words that name them (case-folded; a Japanese word
# anywhere, a word of a spaced script whole).
FACETS: dict[str, tuple[str, ...]] = {
    "settings": (
        "setting", "settings", "option", "options", "configuration", "config", "configure",
        "configured", "variable", "variables", "設定", "オプション", "環境変数", "einstellung",
        "einstellungen", "konfiguration", "konfigurieren", "option", "optionen",
    ),
    "command": (
        "command", "commands", "cli", "subcommand", "flag", "flags", "コマンド", "befehl",
        "befehle", "kommando",
    ),
    "example": (
        "example", "examples", "sample", "samples", "例", "サンプル", "beispiel", "beispiele",
    ),
    "docs": (
        "documentation", "docs", "doc", "document", "documents", "manual", "manuals", "guide",
        "page", "pages", "section", "chapter", "handbook", "reference", "tutorial", "howto",
        "manpage", "ドキュメント", "文書", "マニュアル", "資料", "手引き", "説明書",
        "ページ", "章", "節", "dokumentation", "doku", "handbuch", "anleitung", "seite",
        "kapitel", "abschnitt", "dokument",
    ),
    "file": ("file", "files", "ファイル", "datei", "dateien"),
}  # fmt: skip
_FACET_OF = {w: facet for facet, words in FACETS.items() for w in words}

_FIND = r"(?:find|get|look(?:\s+(?:up|for))?|read(?:\s+up)?|learn|see|check|locate|search)"
_WRITTEN = (
    r"(?:documented|described|explained|covered|defined|mentioned|written(?:\s+down)?|listed|"
    r"specified|discussed|detailed|noted|recorded|configured)"
)
_DOC = (
    r"(?:doc(?:ument)?s?|documentation|pages?|files?|sections?|chapters?|manuals?|guides?|"
    r"articles?|notes?|references?|man\s*pages?|tutorials?)"
)
_EN = [
    # where do/can/should I/we/you/one find/read/look up …
    rf"\bwhere\s+(?:(?:do|can|could|would|should|might|may|shall)\s+(?:i|we|you|one)|to)\s+"
    rf"(?:go\s+to\s+)?{_FIND}\b",
    # where is/are … documented (a short subject between)
    rf"\bwhere(?:'s|\s+(?:is|are|was|were))\b(?:\s+\S+){{0,8}}?\s+{_WRITTEN}\b",
    rf"\bwhere\s+(?:in|on)\s+the\s+{_DOC}\b",
    rf"\bwhich\s+{_DOC}\s+(?:covers?|describes?|explains?|documents?|has|have|talks?|mentions?|"
    rf"lists?|says?|contains?|is\s+about|are\s+about|should\s+i\s+read)\b",
    r"\b(?:give|send|show)\s+me\s+(?:the|a)\s+link\b",
    r"\b(?:point|direct)\s+me\s+to\b",
    r"\blink\s+to\s+the\s+(?:docs?|documentation|page|manual|guide)\b",
    r"\bis\s+there\s+(?:a|any)\s+(?:docs?|documentation|page|manual|guide)\s+(?:on|about|for)\b",
]
_JA_PLACE = r"(?:どこ|何処|どの(?:文書|ページ|ドキュメント|マニュアル|資料|章|節|ファイル|項目))"
_JA_VERB = (
    r"(?:書い|書かれ|載っ|載せ|記載|説明さ|説明し|解説|調べ|見つけ|見つか|見れ|見る|見ます|探せ|探し|"
    r"読め|読む|読み|確認|参照|分か|わか|載って|まとめ|記述|定義|設定)"
)
_JA = [
    rf"{_JA_PLACE}[でにをがのは]?.{{0,8}}?{_JA_VERB}",
    r"参照先|リンクを(?:ください|教えて|下さい)",
]
_DE_FIND = r"(?:finden|finde|nachlesen|nachschlagen|lesen|sehen|nachsehen|suchen)"
_DE = [
    r"\bwo\s+finde\s+ich\b",
    rf"\bwo\s+(?:kann|könnte|sollte|muss|soll)\s+(?:ich|man|wir)\b(?:\s+\S+){{0,8}}?\s+{_DE_FIND}\b",
    r"\bwo\s+(?:ist|sind|wird|werden)\b(?:\s+\S+){0,8}?\s+(?:dokumentiert|beschrieben|"
    r"erklärt|erläutert|definiert|aufgeführt|konfiguriert|eingestellt|festgelegt)\b",
    r"\bwo\s+steh(?:t|en)\b",
    r"\bin\s+welche[mnr]?\s+(?:dokument|kapitel|abschnitt|handbuch|datei|seite|doku)\b",
    r"\bwelche\s+(?:seite|datei|doku|dokumentation|anleitung)\b",
    r"\bwo\s+gibt\s+es\s+(?:infos?|informationen|doku|dokumentation|details)\b",
]
_PATTERNS = [re.compile(p, re.IGNORECASE) for p in (*_EN, *_JA, *_DE)]

# Function words and navigation phrasing the subject leaves out (case-folded).
_DROP_WORDS = """
    where wheres do does did can could would should might may shall i we you one me my our
    to go find get look up for read learn see check locate search is are was were be the a
    an about on of in into at it its this that these those there please which what give send
    show link point direct any some more info information details detail documented
    described explained covered defined mentioned written down listed specified discussed
    detailed noted recorded kept stored configured set how has have talk talks mentions list
    lists says say contains contain and or with from by wo finde ich kann könnte sollte muss
    soll man wir finden nachlesen nachschlagen lesen sehen nachsehen suchen ist sind wird
    werden dokumentiert beschrieben erklärt erläutert definiert aufgeführt konfiguriert
    eingestellt festgelegt steht stehen in welchem welcher welchen welche gibt es infos info
    informationen details über zu zum zur der die das den dem des ein eine einen einem einer
    und oder für mit von im am bitte wie was etwas
"""
_DROP = frozenset(_DROP_WORDS.split())
# What a Japanese question's subject ends with before its navigation phrasing.
_JA_TAIL = re.compile(
    r"(?:について(?:は|の)?|に関して(?:は)?|に関する|って|とは|は|が|を|の|、|,|\s)+$"
)
_WORD = re.compile(r"[^\W_][\w'’.+\-/]*", re.UNICODE)


@dataclass(frozen=True)
class Navigation:
    cue: str  # the phrase that read the question as navigation, as written
    subject: str  # what the catalog is searched for
    facet: str | None  # the surface the question names: docs, settings, command, example, file


def navigation(question: str) -> Navigation | None:
    """The question read as navigation, or None (module docstring)."""
    if not isinstance(question, str):
        return None
    text = unicodedata.normalize("NFKC", question)
    for pattern in _PATTERNS:
        found = pattern.search(text)
        if found is not None:
            subject, facet = _distil(text, found)
            return Navigation(found.group(0).strip(), subject, facet)
    return None


def _distil(text: str, cue: re.Match[str]) -> tuple[str, str | None]:
    """The subject and facet of a navigation question whose phrasing `cue` matched."""
    if re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", cue.group(0)):
        return _distil_ja(text, cue)
    words = [w.strip("'’.-/") for w in _WORD.findall(text)]
    facet: str | None = None
    subject: list[str] = []
    for w in words:
        key = w.casefold()
        if key in _FACET_OF:
            facet = facet or _FACET_OF[key]
        elif key and key not in _DROP and not key.endswith("'s"):
            subject.append(w)
    return " ".join(subject), facet


def _distil_ja(text: str, cue: re.Match[str]) -> tuple[str, str | None]:
    """Japanese: the subject is what comes before the navigation phrasing, its particles cut;
    a surface word in it is its facet (and leaves it)."""
    head = text[: cue.start()]
    facet: str | None = next(
        (f for w, f in _FACET_OF.items() if not w.isascii() and w in text), None
    )
    for w, f in sorted(_FACET_OF.items(), key=lambda kv: -len(kv[0])):
        if not w.isascii() and w in head and len(_JA_TAIL.sub("", head.replace(w, ""))) > 0:
            head = head.replace(w, " ")
            facet = facet or f
    subject = _JA_TAIL.sub("", head.strip())
    subject = re.sub(r"^(?:.*?[。？?!！]\s*)", "", subject)  # an earlier sentence: not the subject
    return " ".join(subject.split()), facet
