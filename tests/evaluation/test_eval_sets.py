"""Reading the evaluation sets: a set that cannot be scored as written is refused when it is
read, as invalid_input naming where, never a traceback or a silent miss."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from eval_fixtures import GRAPH_SET

from tabane.errors import InvalidInput
from tabane.evaluation import graph_set, memory_set, questions
from tabane.evaluation.metrics import Scores, ndcg

MEMORY: dict[str, Any] = {
    "conversations": [
        {"id": "c1", "participants": ["Ana", "Ben"], "sessions": [
            {"id": "c1-s1", "date": "2023-01-05", "turns": [
                {"id": "c1-s1-t1", "speaker": "Ana", "text": "I moved to Lisbon."},
                {"id": "c1-s1-t2", "speaker": "Ana", "text": "Now I moved to Porto."}]}]}
    ],
    "questions": [
        {"id": "q1", "conversation": "c1", "asker": "Ben", "category": "single-hop",
         "question": "Where did Ana move first?", "evidence": ["c1-s1-t1"]},
        {"id": "q2", "conversation": "c1", "asker": "Ben", "category": "update",
         "question": "Where does Ana live now?", "evidence": ["c1-s1-t2"],
         "distractors": ["c1-s1-t1"]},
    ],
}  # fmt: skip


def _paths(err: pytest.ExceptionInfo[InvalidInput]) -> list[str]:
    return [i.path for i in err.value.issues]


def _question(relevant: dict[str, Any]) -> str:
    return json.dumps({"id": "q1", "question": "zebra", "corpus": "c", "relevant": relevant})


@pytest.mark.parametrize("kind", ["missing", "not utf-8", "a folder"])
def test_an_unreadable_docs_set_is_invalid_input_naming_it(tmp_path: Path, kind: str) -> None:
    path = {"missing": tmp_path / "none.jsonl", "a folder": tmp_path}.get(kind)
    if path is None:
        path = tmp_path / "latin1.jsonl"
        path.write_bytes(b'{"id": "q1", "relevant": {"\xe9.txt": 2}}\n')
    with pytest.raises(InvalidInput) as err:
        questions.load(path)
    assert str(path) in err.value.message and _paths(err) == ["set"]


def test_an_integral_float_grade_is_its_integer(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    path.write_text(_question({"a.txt": 2.0, "b.txt": 1}) + "\n")
    [q], problems = questions.load(path)
    assert q.relevant == {"a.txt": 2, "b.txt": 1} and problems == []
    assert Scores.of(["b.txt", "a.txt"], q.relevant).ndcg10 < 1.0


@pytest.mark.parametrize("grade", [2.5, -1, -2.0, True, "2", None, [2], 11, 10**300, 1e300])
def test_a_grade_that_is_not_an_integer_in_0_to_10_is_refused(tmp_path: Path, grade: Any) -> None:
    path = tmp_path / "set.jsonl"
    path.write_text(_question({"ok.txt": 2}) + "\n" + _question({"a.txt": grade}) + "\n")
    with pytest.raises(InvalidInput) as err:
        questions.load(path)
    [issue] = err.value.issues
    assert issue.path == "line 2" and "q1" in issue.problem and "a.txt" in issue.problem


def test_a_grade_out_of_range_is_still_a_problem_beside_the_scores(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    path.write_text(_question({"a.txt": 3}) + "\n")
    [q], problems = questions.load(path)
    assert q.relevant == {"a.txt": 3} and "q1: no grade-2 page" in problems


def test_ndcg_never_divides_by_an_ideal_that_is_not_positive() -> None:
    assert ndcg(["a", "b"], {"a": -1}) == 0.0
    assert ndcg(["a"], {"a": 0}) == 0.0


def _graph(tmp_path: Path, data: Any) -> Path:
    path = tmp_path / "graph.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_graph_question_must_name_a_context_of_the_set(tmp_path: Path) -> None:
    data = copy.deepcopy(GRAPH_SET)
    data["questions"][1]["context"] = "nosuch"
    with pytest.raises(InvalidInput) as err:
        graph_set.load(_graph(tmp_path, data))
    assert _paths(err) == ["questions[1].context"]
    assert "q2: no context 'nosuch'; known: fc" in err.value.issues[0].problem


def test_a_needed_triple_the_set_never_asserts_is_refused(tmp_path: Path) -> None:
    data = copy.deepcopy(GRAPH_SET)
    data["questions"][0]["needed"][1] = ["GPS loss", "hates", "failsafe_land"]
    with pytest.raises(InvalidInput) as err:
        graph_set.load(_graph(tmp_path, data))
    assert _paths(err) == ["questions[0].needed[1]"]


def test_a_cue_without_a_target_and_a_weight_that_is_not_a_number_are_refused(
    tmp_path: Path,
) -> None:
    data = copy.deepcopy(GRAPH_SET)
    data["questions"][0]["resolves_to"].pop("GPS loss")
    data["contexts"][0]["associations"][2]["weight"] = "NaN"
    with pytest.raises(InvalidInput) as err:
        graph_set.load(_graph(tmp_path, data))
    assert _paths(err) == ["contexts[0].associations[2].weight", "questions[0].resolves_to"]


def test_the_sets_as_written_load(tmp_path: Path) -> None:
    assert len(graph_set.load(_graph(tmp_path, GRAPH_SET)).questions) == 2
    path = tmp_path / "memory.json"
    path.write_text(json.dumps(MEMORY))
    assert len(memory_set.load(path).questions) == 2


def test_empty_graph_and_memory_sets_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput) as err:
        graph_set.load(_graph(tmp_path, {"contexts": [], "questions": []}))
    assert _paths(err) == ["questions"]
    path = tmp_path / "memory.json"
    path.write_text(json.dumps({"conversations": [], "questions": []}))
    with pytest.raises(InvalidInput) as err:
        memory_set.load(path)
    assert _paths(err) == ["questions"]


def test_memory_evidence_and_distractors_must_be_turns_of_the_conversation(
    tmp_path: Path,
) -> None:
    data = copy.deepcopy(MEMORY)
    data["questions"][0]["evidence"] = ["c1-s1-t1", "t999"]
    data["questions"][1]["distractors"] = ["nope"]
    path = tmp_path / "memory.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InvalidInput) as err:
        memory_set.load(path)
    assert _paths(err) == ["questions[0].evidence[1]", "questions[1].distractors[0]"]
    assert "q1: no turn 't999' in c1" in err.value.issues[0].problem
