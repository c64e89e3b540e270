"""`tabane eval memory` and the docs/graph sets through recall, on small sets of the dev shapes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from eval_fixtures import GRAPH_SET

from tabane.errors import InvalidInput
from tabane.evaluation.graph_eval import run_graph_eval
from tabane.evaluation.memory_eval import lang_of, render, run_memory_eval
from tabane.evaluation.memory_set import Conversation, MemSession, MemTurn, install
from tabane.evaluation.recall_eval import render_graph, run_docs_recall, run_graph_recall
from tabane.ingest.documents import DocumentInput, block
from tabane.principal import Principal
from tabane.recall.result import Citation, Evidence
from tabane.service import Tabane

from helpers import unique


def _turns(session: str, *said: tuple[str, str]) -> list[dict[str, str]]:
    return [{"id": f"{session}-t{i}", "speaker": s, "text": t} for i, (s, t) in enumerate(said, 1)]


FILLER = [("Ana", f"Small talk number {i} about nothing much.") for i in range(25)]
MEMORY = {
    "conversations": [
        {
            "id": "c1",
            "participants": ["Ana", "Ben"],
            "sessions": [
                {
                    "id": "c1-s1",
                    "date": "2023-01-05",
                    "turns": _turns(
                        "c1-s1",
                        ("Ana", "I moved to Lisbon for the new job at the aquarium."),
                        ("Ben", "My parrot Kiwi keeps shouting at the neighbours."),
                        ("Ana", "Horror films are the best, I adore them."),
                        ("Ben", "I cannot stand horror films at all."),
                    ),
                },
                {"id": "c1-s2", "date": "2023-03-01", "turns": _turns("c1-s2", *FILLER)},
                {
                    "id": "c1-s3",
                    "date": "2023-06-10",
                    "turns": _turns("c1-s3", ("Ana", "Big news: I moved again, now to Porto.")),
                },
            ],
        }
    ],
    "questions": [
        {"id": "q1", "conversation": "c1", "asker": "Ben", "category": "single-hop",
         "question": "Which aquarium job did Ana take in Lisbon?", "evidence": ["c1-s1-t1"]},
        {"id": "q2", "conversation": "c1", "asker": "Ben", "category": "update",
         "question": "Which city did Ana move to most recently?", "evidence": ["c1-s3-t1"],
         "distractors": ["c1-s1-t1"]},
        {"id": "q3", "conversation": "c1", "asker": "Ben", "category": "perspective",
         "question": "What does Ana think of horror films?", "evidence": ["c1-s1-t3"],
         "distractors": ["c1-s1-t4"]},
        {"id": "q4", "conversation": "c1", "asker": "Ben", "category": "adversarial-absent",
         "question": "What is the name of Ana's parrot?", "evidence": [], "traps": ["Kiwi"]},
    ],
}  # fmt: skip


def _write(tmp_path: Path, name: str, data: object) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.mark.slow
def test_old_turns_need_another_lane_and_documents_give_one(
    svc: Tabane, user: Principal, tmp_path: Path
) -> None:
    path = _write(tmp_path, "memory.json", MEMORY)
    report = run_memory_eval(
        svc,
        user,
        path,
        loadings=("turns", "documents"),
        plans=("maximal", "no_session"),
        prefix=unique("m"),
    )
    runs = {(r.loading, r.plan): r for r in report.runs}
    assert report.budget == svc.settings.recall_budget and report.loaded["turns"] == 30
    # The window (20 latest turns) cannot reach the first session: turns alone miss q1.
    turns_only = {r.id: r for r in runs[("turns", "maximal")].rows}
    assert not turns_only["q1"].all_at[10]
    assert turns_only["q2"].all_at[5]  # the latest turn is in the window
    # Session documents put the old turns in reach of BM25, with or without the window.
    for plan in ("maximal", "no_session"):
        rows = {r.id: r for r in runs[("documents", plan)].rows}
        assert rows["q1"].all_at[10] and rows["q1"].partial10 == 1.0
    docs = {r.id: r for r in runs[("documents", "maximal")].rows}
    assert docs["q3"].attributed10  # the covering paragraph carries Ana as its section
    # a session paragraph speaks as its section (decision 0045): Ben's parrot is not Ana's
    assert docs["q4"].abstained is True and docs["q4"].trap is False
    assert runs[("documents", "maximal")].overall.questions == 3  # adversarial excluded
    assert runs[("documents", "maximal")].by_lang["en"].questions == 3
    table = render(report)
    assert "| documents | no_session |" in table and "| lang=en | 3 |" in table


def test_items_map_back_to_turn_ids(svc: Tabane, user: Principal) -> None:
    conv = Conversation(
        "c9",
        ("Ana", "Ben"),
        (MemSession("c9-s1", "2023-01-05", (MemTurn("c9-s1-t1", "Ana", "Hello from Lisbon."),)),),
    )
    loaded = install(svc, user, conv, loading="notes", prefix=unique("m"))
    note = Evidence("c:1", "claim", "Hello from Lisbon.", "derived memory",
                    Citation(source="c9-s1-t1", claim=1), (), author="Ana")  # fmt: skip
    turn = Evidence("t:1", "turn", "Hello from Lisbon.", "recent session memory",
                    Citation(session=loaded.session, turn=1), (), author="Ben")  # fmt: skip
    assert loaded.covers(note) == {"c9-s1-t1"} and loaded.attributed(note, "c9-s1-t1")
    assert loaded.covers(turn) == {"c9-s1-t1"} and not loaded.attributed(turn, "c9-s1-t1")
    page = svc.memories(user, loaded.context, author="Ana")
    assert [m.source for m in page.memories] == ["c9-s1-t1"]
    assert lang_of("花は何を飼っていますか?") == "ja" and lang_of("What pet?") == "en"


@pytest.mark.slow
def test_graph_questions_through_recall_read_associations_by_key(
    svc: Tabane, user: Principal, tmp_path: Path
) -> None:
    path = _write(tmp_path, "graph.json", GRAPH_SET)
    report = run_graph_recall(
        svc, user, path, plans=("maximal", "sources_only"), prefix=unique("g")
    )
    runs = {r.plan: r for r in report.runs}
    rows = {r.id: r for r in runs["maximal"].rows}
    # the negative edge counts (it is served signed negative) beside the positive one
    assert rows["q1"].present == rows["q1"].needed == 2
    assert rows["q2"].present == rows["q2"].needed == 1
    assert runs["maximal"].overall.all_rate == 1.0
    assert runs["sources_only"].overall.present == 0  # no walk lane, no associations
    assert "| sources_only | all |" in render_graph(report)


def test_docs_questions_through_recall_score_served_paragraphs(
    svc: Tabane, user: Principal, tmp_path: Path
) -> None:
    context = unique("d")
    svc.create_context(user, context)
    for sid, text in [
        ("kettle.html", "Descale the kettle element with vinegar to remove limescale."),
        ("garden.html", "Prune the roses in late winter above an outward bud."),
    ]:
        svc.ingest(user, context, DocumentInput(source_id=sid, paragraphs=[block(text)]))
    question = {"id": "x-1", "question": "how do I remove limescale?", "lang": "en",
                "corpus": "adhoc", "relevant": {"kettle.html": 2}}  # fmt: skip
    path = tmp_path / "set.jsonl"
    path.write_text(json.dumps(question) + "\n", encoding="utf-8")
    report = run_docs_recall(svc, user, path, context, plans=("maximal", "lexical_only"))
    for run in report.runs:
        assert run.scores.ndcg10 == 1.0 and run.rows[0].top10[0] == "kettle.html"


def test_options_are_refused_by_name_before_anything_is_loaded(
    svc: Tabane, user: Principal, tmp_path: Path
) -> None:
    memory = _write(tmp_path, "memory.json", MEMORY)
    graph = _write(tmp_path, "graph.json", GRAPH_SET)
    prefix = unique("o")
    refused = [
        (lambda: run_memory_eval(svc, user, memory, loadings=("bogus",), prefix=prefix),
         "loadings", "unknown loading 'bogus'"),
        (lambda: run_memory_eval(svc, user, memory, plans=("nope",), prefix=prefix),
         "plans", "unknown plan 'nope'"),
        (lambda: run_memory_eval(svc, user, memory, budget=0, prefix=prefix),
         "budget", "budget 0 is not in 1..200000"),
        (lambda: run_graph_eval(svc, user, graph, limit=-5, prefix=prefix),
         "limit", "limit -5 is not in 1..1000"),
        (lambda: run_graph_eval(svc, user, graph, limit=0, prefix=prefix),
         "limit", "limit 0 is not in 1..1000"),
        (lambda: run_graph_recall(svc, user, graph, plans=("maximal", "bogus"), prefix=prefix),
         "plans", "unknown plan 'bogus'"),
        (lambda: run_graph_recall(svc, user, graph, budget=0, prefix=prefix),
         "budget", "budget 0 is not in 1..200000"),
        (lambda: run_docs_recall(svc, user, tmp_path / "none.jsonl", "x", plans=("bogus",)),
         "plans", "unknown plan 'bogus'"),
    ]  # fmt: skip
    for run, path, message in refused:
        with pytest.raises(InvalidInput) as err:
            run()
        assert err.value.message == message
        assert [i.path for i in err.value.issues] == [path]
    assert not [c for c in svc.list_contexts(user) if c.name.startswith(prefix)]


def test_a_budget_of_zero_is_not_the_default(svc: Tabane, user: Principal, tmp_path: Path) -> None:
    context = unique("d")
    svc.create_context(user, context)
    path = tmp_path / "set.jsonl"
    question = {"id": "x", "question": "kettle", "corpus": "adhoc", "relevant": {"k.html": 2}}
    path.write_text(json.dumps(question) + "\n", encoding="utf-8")
    assert run_docs_recall(svc, user, path, context, plans=("maximal",), budget=7).budget == 7
    with pytest.raises(InvalidInput):
        run_docs_recall(svc, user, path, context, plans=("maximal",), budget=0)
