"""The docs harness end to end on a tiny corpus, BM25 plan (the `svc` fixture has no embedder).

Each question's terms occur in one or two files, so the document rankings, and from them every
metric, can be worked out by hand: see the comments next to the expected values.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tabane.errors import InvalidInput, Issue
from tabane.evaluation.corpora import CORPORA, corpus, select_files
from tabane.evaluation.docs_eval import run_docs_eval
from tabane.service import Tabane

from helpers import unique

FILES = {
    "a.txt": "zebra zebra zebra grazing on the plain",
    "b.txt": "zebra stripes are seen",
    "c.txt": "kettle boiling water for tea",
    "d.txt": "volcano lava eruption",
    "e.txt": "kettle descaling guide kettle",
    "sub/f.txt": "nothing here at all",
}
QUESTIONS = [
    # a (tf 3) ranks above b (tf 1): [a, b]
    {"id": "t-1", "question": "zebra", "relevant": {"b.txt": 2, "a.txt": 1}},
    # e has both terms, c one: [e, c]
    {"id": "t-2", "question": "kettle descaling", "relevant": {"c.txt": 2}},
    # only d matches: [d]; f is never found
    {"id": "t-3", "question": "volcano", "relevant": {"d.txt": 2, "sub/f.txt": 1}},
]
SELECT = ("*.txt",)  # the synthetic corpus is not one tabane knows: its files are named
L2_3 = math.log2(3)
IDEAL_2_1 = 3 + 1 / L2_3  # IDCG of grades (2, 1)
NDCG = [(1 + 3 / L2_3) / IDEAL_2_1, (3 / L2_3) / 3, 3 / IDEAL_2_1]
RECALL = [1.0, 1.0, 0.5]
MRR = [1.0, 0.5, 1.0]


def _corpus(tmp_path: Path, corpus: str = "synthetic", questions=QUESTIONS) -> tuple[Path, Path]:
    root = tmp_path / "corpus"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text + "\n")
    set_path = tmp_path / "set.jsonl"
    set_path.write_text(
        "".join(json.dumps({**q, "lang": "en", "corpus": corpus}) + "\n" for q in questions)
    )
    return set_path, root


@pytest.mark.slow
def test_bm25_plan_scores_exactly_what_was_worked_out_by_hand(svc: Tabane, user, tmp_path):
    set_path, root = _corpus(tmp_path)
    context = unique("eval")
    report = run_docs_eval(
        svc, user, set_path, root, context=context, plans=("bm25",), select=SELECT
    )
    assert report.files_selected == report.files_ingested == 6
    assert report.ingest == {"created": 6}
    assert report.problems == []
    rows = {r.id: r for r in report.rows}
    assert rows["t-1"].top10 == ["a.txt", "b.txt"]
    assert rows["t-2"].top10 == ["e.txt", "c.txt"]
    assert rows["t-3"].top10 == ["d.txt"]
    for i, qid in enumerate(("t-1", "t-2", "t-3")):
        s = rows[qid].scores
        assert s.ndcg10 == pytest.approx(NDCG[i])
        assert s.recall5 == s.recall10 == pytest.approx(RECALL[i])
        assert s.mrr10 == pytest.approx(MRR[i])
    [summary] = report.plans
    assert (summary.plan, summary.questions) == ("bm25", 3)
    assert summary.scores.ndcg10 == pytest.approx(sum(NDCG) / 3)
    assert summary.scores.recall10 == pytest.approx(2.5 / 3)
    assert summary.scores.mrr10 == pytest.approx(2.5 / 3)

    again = run_docs_eval(
        svc, user, set_path, root, context=context, plans=("bm25",), select=SELECT
    )
    assert again.ingest == {"unchanged": 6}  # stored files are skipped, not re-ingested
    assert again.plans[0].scores == summary.scores


def test_a_plan_whose_lane_cannot_run_says_so(svc: Tabane, user, tmp_path):
    set_path, root = _corpus(tmp_path)
    report = run_docs_eval(
        svc, user, set_path, root, context=unique("eval"), plans=("vector",), select=SELECT
    )
    assert report.plans[0].lanes_not_run == {"vector: no_embedder": 3}
    assert report.plans[0].scores.ndcg10 == 0.0


def test_a_missing_relevant_file_fails_the_run_clearly_before_any_ingest(
    svc: Tabane, user, tmp_path
):
    bad = [*QUESTIONS, {"id": "t-4", "question": "tea", "relevant": {"gone.txt": 2}}]
    set_path, root = _corpus(tmp_path, questions=bad)
    context = unique("eval")
    with pytest.raises(InvalidInput) as err:
        run_docs_eval(svc, user, set_path, root, context=context, plans=("bm25",), select=SELECT)
    assert [(i.path, i.problem) for i in err.value.issues] == [
        ("relevant", f"t-4: gone.txt does not exist under {root}")
    ]
    assert err.value.written == "nothing"
    assert context not in {c.name for c in svc.list_contexts(user)}


def test_a_relevant_page_the_ingest_did_not_store_says_what_was_written(
    svc: Tabane, user, tmp_path
):
    bad = [*QUESTIONS, {"id": "t-4", "question": "tea", "relevant": {"blank.txt": 2}}]
    set_path, root = _corpus(tmp_path, questions=bad)
    (root / "blank.txt").write_text("  \n")
    context = unique("eval")
    with pytest.raises(InvalidInput) as err:
        run_docs_eval(svc, user, set_path, root, context=context, plans=("bm25",), select=SELECT)
    assert [(i.path, i.problem) for i in err.value.issues] == [
        ("relevant", "t-4: blank.txt was not ingested")
    ]
    assert err.value.written == (
        f"context {context!r} created; the corpus ingested into context {context!r}: "
        "6 created, 1 empty of 7 files"
    )


def test_an_unknown_plan_is_refused_by_name_before_anything_is_read(svc: Tabane, user, tmp_path):
    with pytest.raises(InvalidInput) as err:
        run_docs_eval(svc, user, tmp_path / "none.jsonl", tmp_path, plans=("bm25", "bogus"))
    assert err.value.message == "unknown plan 'bogus'"
    [issue] = err.value.issues
    assert issue == Issue("plans", "unknown plan 'bogus'; known: fused, bm25, vector")


@pytest.mark.slow
def test_set_and_count_problems_are_reported(svc: Tabane, user, tmp_path):
    root = tmp_path / "git"
    (root / "technical").mkdir(parents=True)
    (root / "git-zebra.html").write_text("<html><body><p>zebra stripes</p></body></html>")
    (root / "technical" / "lava.html").write_text("<html><body><p>lava flows</p></body></html>")
    (root / "git-zebra.txt").write_text("zebra source, not part of the corpus")
    questions = [
        {"id": "g-1", "question": "zebra", "relevant": {"git-zebra.html": 2}},
        {"id": "g-1", "question": "lava", "relevant": {"technical/lava.html": 3}},
    ]
    set_path = tmp_path / "git.jsonl"
    set_path.write_text("".join(json.dumps({**q, "corpus": "git-doc"}) + "\n" for q in questions))
    report = run_docs_eval(svc, user, set_path, root, context=unique("eval"), plans=("bm25",))
    assert report.files_selected == report.files_ingested == 2
    assert report.files_expected == 241
    assert report.problems == [
        "g-1: duplicate id",
        "g-1: grades must be 1 or 2: {'technical/lava.html': 3}",
        "g-1: no grade-2 page",
        "2 files ingested; corpora.md expects 241",
    ]
    assert [r.first_relevant for r in report.rows] == [1, 1]


def test_an_unknown_corpus_without_a_selection_is_refused(svc: Tabane, user, tmp_path):
    set_path, root = _corpus(tmp_path)
    (root / "style.css").write_text("body { color: red }")
    with pytest.raises(InvalidInput) as caught:
        run_docs_eval(svc, user, set_path, root, context=unique("eval"), plans=("bm25",))
    assert caught.value.issues[0].path == "corpus"
    assert "--select" in caught.value.issues[0].problem


def test_a_selection_takes_only_the_files_it_matches(tmp_path):
    root = tmp_path / "docs"
    for rel in ("a.html", "sub/b.html", "style.css", "img/x.svg"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x")
    assert select_files(root, corpus("mine", ["*.html"])) == ["a.html", "sub/b.html"]


def test_the_confirmation_corpora_take_their_root_pages_only(tmp_path):
    root = tmp_path / "hb"
    for rel in ("index.html", "sect.apt-get.html", "Common_Content/x.html", "a.css"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x")
    assert select_files(root, corpus("debian-handbook")) == ["index.html", "sect.apt-get.html"]
    assert select_files(root, corpus("maint-guide-ja")) == []


def test_corpus_rules_select_what_corpora_md_says(tmp_path):
    py = tmp_path / "py"
    for rel in (
        "index.html",
        "library/json.html",
        "_sources/library/json.rst.txt",
        "_static/x.html",
        "genindex.html",
        "genindex-A.html",
        "search.html",
        "py-modindex.html",
        "contents.html",
        "library/contents2.html",
    ):
        (py / rel).parent.mkdir(parents=True, exist_ok=True)
        (py / rel).write_text("x")
    assert select_files(py, CORPORA["python3.11-doc"]) == [
        "index.html",
        "library/contents2.html",
        "library/json.html",
    ]
    man = tmp_path / "man"
    (man / "man1").mkdir(parents=True)
    (man / "man1" / "grep.1.gz").write_bytes(b"x")
    (man / "man1" / "egrep.1.gz").symlink_to("grep.1.gz")
    (man / "man1" / "notes.txt").write_text("x")
    (man / "cat1").mkdir()
    (man / "cat1" / "grep.1.gz").write_bytes(b"x")
    assert select_files(man, CORPORA["manpages-ja"]) == ["man1/grep.1.gz"]
