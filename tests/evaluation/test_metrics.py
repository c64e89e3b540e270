"""Document-level metrics, checked against values computed by hand (shared/eval/README.md)."""

from __future__ import annotations

import math

import pytest

from tabane.evaluation.metrics import Scores, documents, mrr, ndcg, recall

L2_3 = math.log2(3)  # the discount of rank 2
L2_5 = math.log2(5)  # rank 4


def test_first_occurrence_gives_each_document_the_rank_of_its_best_paragraph() -> None:
    assert documents(["a", "b", "a", "c", "b", "d"]) == ["a", "b", "c", "d"]
    assert documents([]) == []


def test_graded_ndcg_uses_gains_two_to_the_grade_minus_one() -> None:
    relevant = {"x": 2, "y": 1}
    # x at rank 1 and y at rank 2: the ideal order.
    assert ndcg(["x", "y", "z"], relevant) == pytest.approx(1.0)
    # y first, then x: (1 + 3/log2 3) / (3 + 1/log2 3)
    assert ndcg(["y", "x"], relevant) == pytest.approx((1 + 3 / L2_3) / (3 + 1 / L2_3))
    # only x, at rank 4: (3/log2 5) / (3 + 1/log2 3)
    assert ndcg(["a", "b", "c", "x"], relevant) == pytest.approx((3 / L2_5) / (3 + 1 / L2_3))


def test_ndcg_cuts_at_ten_and_the_ideal_uses_every_grade() -> None:
    relevant = {"x": 2}
    ranking = [f"d{i}" for i in range(10)] + ["x"]
    assert ndcg(ranking, relevant) == 0.0
    # Three grade-2 pages, one found at rank 1: 3 / (3 + 3/log2 3 + 3/log2 4)
    three = {"x": 2, "y": 2, "w": 2}
    assert ndcg(["x"], three) == pytest.approx(3 / (3 + 3 / L2_3 + 3 / 2))


def test_recall_counts_grades_one_and_two_alike() -> None:
    relevant = {"x": 2, "y": 1, "w": 1}
    ranking = ["y", "a", "b", "c", "d", "x", "e"]
    assert recall(ranking, relevant, 5) == pytest.approx(1 / 3)
    assert recall(ranking, relevant, 10) == pytest.approx(2 / 3)


def test_mrr_is_the_inverse_rank_of_the_first_graded_page_within_ten() -> None:
    relevant = {"x": 2, "y": 1}
    assert mrr(["a", "b", "y", "x"], relevant) == pytest.approx(1 / 3)
    assert mrr(["x"], relevant) == 1.0
    assert mrr([f"d{i}" for i in range(10)] + ["x"], relevant) == 0.0


def test_an_empty_ranking_scores_zero_everywhere() -> None:
    assert Scores.of([], {"x": 2}) == Scores(0.0, 0.0, 0.0, 0.0)


def test_duplicates_are_removed_before_scoring() -> None:
    ranking = documents(["a", "a", "a", "x"])  # x is the second document, not the fourth
    assert mrr(ranking, {"x": 2}) == pytest.approx(1 / 2)
    assert ndcg(ranking, {"x": 2}) == pytest.approx(1 / L2_3)


def test_the_mean_is_per_metric_over_the_questions() -> None:
    rows = [Scores(1.0, 1.0, 1.0, 1.0), Scores(0.5, 0.0, 0.5, 0.25)]
    assert Scores.mean(rows) == Scores(0.75, 0.5, 0.75, 0.625)
    assert Scores.mean([]) == Scores(0.0, 0.0, 0.0, 0.0)
