"""The relevance gate: a trivial turn ("hi", "thanks", "了解です") is answered with no evidence.

Pure and deterministic. A turn is trivial when
- it has no words at all (only punctuation, symbols or emoji): "trivial_turn: no words";
- it is short: under MIN_WEIGHT, counting a character of CJK, kana or Hangul as CJK_WEIGHT and
  any other character (spaces between words included) as 1: "trivial_turn: too short";
- or it is made only of greetings, thanks and acknowledgements (with fillers such as "so much",
  "everyone", "ございます" around at least one of them), where a greeting, thanks or farewell
  may be followed by one other word, the person it addresses ("thanks, Hannah", "hi tom, how's it
  going"), that is not a question word: "trivial_turn: greeting or thanks". An acknowledgement
  opens no such slot: "yes, postgres" answers something.

Both sides are compared in one form: NFKC, case folding, katakana → hiragana, apostrophes and the
long-vowel mark dropped, other punctuation and symbols as spaces, a letter repeated three or more
times as one ("thanksss", "hiii"). A greeting phrase must sit on word boundaries in scripts
written with spaces ("hi" is not in "hiking") and may sit anywhere in scripts written without
them ("ありがとうございます" is ありがとう + ございます).
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from tabane.text.tokenize import normalize

# Weighted characters below which a turn is too short to carry a question. The issue sets 12 for
# English ("thanks a lot" is 12). CJK text packs about three times as much into a character: the
# usual BPE vocabularies give about 4 characters per token for English and 1 to 1.5 for Japanese,
# and a Japanese word is one to three characters where an English one is five or six with its
# space. Weight 2 is the conservative half of that ratio: a six-character Japanese question
# ("東京の天気は", 12) passes, a three-character one ("天気は", 6) is gated — as "weather?" (8) is.
MIN_WEIGHT = 12
CJK_WEIGHT = 2

REASON_SHORT = "trivial_turn: too short"
REASON_GREETING = "trivial_turn: greeting or thanks"
REASON_EMPTY = "trivial_turn: no words"

_CJK = re.compile(
    "[\u3005\u3006\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\uac00-\ud7af\u1100-\u11ff\u3130-\u318f\U00020000-\U0002ffff]"
)
_SPACES = re.compile(r"\s+")
_REPEATS = re.compile(r"(\w)\1{2,}")
# Apostrophes, the long-vowel mark, emoji variation selectors and the keycap mark.
_DROPPED = str.maketrans("", "", "'\u2019\u02bc\u30fc\uff70\ufe0e\ufe0f\u20e3")

# A turn made only of these (at least one core phrase) is trivial.
_CORE = """
hi hello hey hiya heya yo howdy greetings
good-morning good-afternoon good-evening good-night good-day morning evening gm gn
thanks thank-you thankyou thx thanx tnx ty tysm tyvm cheers kudos
many-thanks much-appreciated appreciated appreciate-it
ok okay okey okie k kk alright all-right sure yes yeah yea yep yup no nope nah
got-it gotcha understood noted roger roger-that ack will-do makes-sense i-see
cool nice great awesome perfect excellent wonderful fine good neat sweet lovely
sounds-good looks-good lgtm np no-problem no-worries youre-welcome you-are-welcome
bye goodbye good-bye bye-bye see-you see-ya cya later ttyl take-care see-you-soon
how-are-you how-are-you-doing how-is-it-going hows-it-going how-are-things whats-up sup
welcome-back nice-to-meet-you good-to-see-you
lol haha hahaha hehe wow oh ah hmm sorry my-bad welcome
こんにちは こんにちわ こんばんは こんばんわ おはよう おはようございます やあ もしもし はじめまして
ありがとう ありがと ありがとうございます ありがとうございました どうも どうもありがとう さんきゅ
感謝 感謝します 助かります 助かりました 助かる お疲れ様 お疲れさま おつかれさま お疲れ おつかれ
了解 りょうかい りょ 承知 承知しました かしこまりました わかりました 分かりました わかった 分かった
はい うん ええ いいえ いや おけ おっけ おーけー なるほど 確かに たしかに そうですね そっか
いいね いいですね すごい 最高 さすが よろしく よろしくお願いします よろしくおねがいします
さようなら またね じゃあね じゃね おやすみ おやすみなさい すみません ごめん ごめんなさい
失礼します 笑 w
你好 您好 谢谢 多谢 再见 好的 嗯
안녕 안녕하세요 감사합니다 고마워 고맙습니다 네 응 알겠습니다
"""
# Words that may stand beside a core phrase but do not make a turn trivial on their own.
_FILLER = """
there all everyone everybody folks guys team again so much very a-lot a-bunch
really indeed then for that this the it you your help just and too as always today tomorrow
です ます ました でした ございます ございました ね よ な さん みなさん 皆さん 皆様 本当に ほんとに
とても どうも
"""


# The core phrases a name may follow (greetings, thanks, farewells; not "yes" or "ok").
_ADDRESSING = """
hi hello hey hiya heya yo howdy greetings good-morning good-afternoon good-evening good-night
good-day morning evening thanks thank-you thankyou thx thanx ty cheers many-thanks bye goodbye
good-bye bye-bye see-you see-ya cya take-care see-you-soon welcome welcome-back how-are-you
how-are-you-doing how-is-it-going hows-it-going nice-to-meet-you good-to-see-you sorry
"""
# Words that cannot be the person a greeting addresses: "ok, why?" asks something.
_QUESTION_WORDS = """
who whom whose what which when where why how whether is are was were do does did can could will
would shall should may might must not
"""
_ASKING = frozenset(_QUESTION_WORDS.split())


@cache
def _phrases() -> dict[str, tuple[tuple[str, bool, bool], ...]]:
    """First character -> (normalized phrase, is core, may address someone), longest first."""
    out: dict[str, tuple[bool, bool]] = {}
    for words, core, addressing in ((_FILLER, 0, 0), (_CORE, 1, 0), (_ADDRESSING, 1, 1)):
        for word in words.split():
            key = _form(word.replace("-", " "))
            if key:
                was = out.get(key, (False, False))
                out[key] = (was[0] or bool(core), was[1] or bool(addressing))
    by_first: dict[str, list[tuple[str, bool, bool]]] = {}
    for key, (core, addressing) in sorted(out.items(), key=lambda kv: (-len(kv[0]), kv[0])):
        by_first.setdefault(key[0], []).append((key, core, addressing))
    return {first: tuple(items) for first, items in by_first.items()}


def gate(question: str) -> str | None:
    """Why this turn is trivial (and gets no evidence), or None when it deserves a recall."""
    form = _form(question)
    if not form:
        return REASON_EMPTY
    if _greeting(form):
        return REASON_GREETING
    if weight(question) < MIN_WEIGHT:
        return REASON_SHORT
    return None


def weight(text: str) -> int:
    """The turn's length in weighted characters: NFKC, stripped, whitespace runs as one space,
    CJK characters counted CJK_WEIGHT times."""
    text = _SPACES.sub(" ", unicodedata.normalize("NFKC", text)).strip()
    return len(text) + (CJK_WEIGHT - 1) * len(_CJK.findall(text))


def _form(text: str) -> str:
    text = normalize(text).translate(_DROPPED)
    text = "".join(" " if unicodedata.category(ch)[0] in "PSZC" else ch for ch in text)
    text = _REPEATS.sub(r"\1", text)
    return _SPACES.sub(" ", text).strip()


def _wordy(ch: str) -> bool:
    """A character of a word in a script that separates words with spaces."""
    return ch.isalnum() and not _CJK.match(ch)


def _greeting(form: str) -> bool:
    """Whether `form` is a sequence of phrases on word boundaries with at least one core one,
    where a greeting (and the fillers after it) may be followed by one addressee word."""
    n = len(form)
    # reach[i]: the states (a core phrase seen, an addressee may follow) reaching position i
    reach: list[set[tuple[bool, bool]]] = [set() for _ in range(n + 1)]
    reach[0].add((False, False))
    for i in range(n):
        if not reach[i]:
            continue
        if form[i] == " ":
            reach[i + 1] |= reach[i]
            continue
        if i > 0 and _wordy(form[i - 1]) and _wordy(form[i]):
            continue  # inside a word: no phrase may start here
        for phrase, core, addressing in _phrases().get(form[i], ()):
            end = i + len(phrase)
            if not form.startswith(phrase, i):
                continue
            if end < n and _wordy(form[end - 1]) and _wordy(form[end]):
                continue  # the phrase would end inside a word
            # a greeting opens the addressee's slot, a filler keeps it, "ok" or "yes" shuts it
            reach[end] |= {
                (seen or core, addressing or (slot and not core)) for seen, slot in reach[i]
            }
        if any(slot for _, slot in reach[i]) and form[i].isalpha() and _wordy(form[i]):
            end = i
            while end < n and _wordy(form[end]):
                end += 1
            if form[i:end].isalpha() and form[i:end] not in _ASKING:  # the one addressed
                reach[end].add((True, False))
    return any(seen for seen, _ in reach[n])
