"""The navigation detector (recall/navigation.py): which questions ask where something is
written down, in English, Japanese and German, and what subject and facet they distil."""

from __future__ import annotations

import pytest

from tabane.recall.navigation import navigation

NAVIGATION = [
    # (question, words the subject holds, facet)
    ("Where do I find the retention settings?", {"retention"}, "settings"),
    ("Where can I read up on backup rotation?", {"backup", "rotation"}, None),
    ("where should we look for the deployment guide", {"deployment"}, "docs"),
    ("Where is the proxy configured?", {"proxy"}, "settings"),
    ("Where's the upgrade procedure documented?", {"upgrade", "procedure"}, None),
    ("Where are the exit codes described?", {"exit", "codes"}, None),
    ("Which page covers snapshot restores?", {"snapshot", "restores"}, "docs"),
    ("Which document explains the billing cycle?", {"billing", "cycle"}, "docs"),
    ("Give me the link to the onboarding checklist.", {"onboarding", "checklist"}, None),
    ("Point me to the docs on rate limits", {"rate", "limits"}, "docs"),
    ("Where in the manual is quota enforcement?", {"quota", "enforcement"}, "docs"),
    ("Is there a page about vacation policy?", {"vacation", "policy"}, "docs"),
    ("Where can I find an example of the export command?", {"export"}, "example"),
    ("WHERE DO I FIND THE FIREWALL RULES", {"FIREWALL", "RULES"}, None),
    ("バックアップの設定はどこに書いてありますか？", {"バックアップ"}, "settings"),
    ("ログの保存期間についてはどこを見ればいいですか", {"ログの保存期間"}, None),
    ("権限の説明はどのページに載っていますか", {"権限の説明"}, "docs"),
    ("デプロイ手順はどこで確認できますか？", {"デプロイ手順"}, None),
    ("エクスポートのコマンドはどこに記載されていますか", {"エクスポート"}, "command"),
    ("Wo finde ich die Einstellungen für den Export?", {"Export"}, "settings"),
    ("Wo kann ich etwas über Sicherungen nachlesen?", {"Sicherungen"}, None),
    ("Wo ist die Rechnungsstellung dokumentiert?", {"Rechnungsstellung"}, None),
    ("In welchem Kapitel steht die Installation?", {"Installation"}, "docs"),
    ("Wo steht, wie man Benutzer anlegt?", {"Benutzer", "anlegt"}, None),
    ("Welche Seite beschreibt die Rechte?", {"Rechte"}, "docs"),
]

NOT_NAVIGATION = [
    "Where is the meeting on Friday?",
    "Where does Anna live?",
    "Where did I put the spare keys?",
    "Where was the team offsite last year?",
    "Where is the story set?",
    "How do I find the largest files on a disk?",
    "What does the retention setting do?",
    "Why does the export fail with a timeout?",
    "Which of the two plans is cheaper?",
    "I could not find the bug, can you help?",
    "Where were the samples stored after the trip?",
    "会議はどこで開かれますか？",
    "田中さんはどこに住んでいますか",
    "鍵はどこに置いた？",
    "バックアップの設定を教えてください",
    "Wo wohnt Anna?",
    "Wo ist das Meeting am Freitag?",
    "Wie finde ich große Dateien?",
    "thanks!",
    "",
]


@pytest.mark.parametrize(("question", "words", "facet"), NAVIGATION)
def test_navigation_is_read_with_its_subject_and_facet(question, words, facet):
    found = navigation(question)
    assert found is not None, question
    assert all(w in found.subject for w in words), found
    assert found.facet == facet, found
    assert found.cue.casefold() in question.casefold()


@pytest.mark.parametrize("question", NOT_NAVIGATION)
def test_other_questions_are_not_navigation(question):
    assert navigation(question) is None


def test_the_subject_leaves_the_phrasing_and_the_surface_words_out():
    found = navigation("Where do I find the documentation about retention settings?")
    assert found is not None
    assert found.subject == "retention"
    assert found.facet == "docs"  # the first surface the question names


def test_a_question_of_only_phrasing_has_an_empty_subject():
    found = navigation("Where can I find the docs?")
    assert found is not None and found.subject == "" and found.facet == "docs"


def test_not_a_string_is_not_navigation():
    assert navigation(None) is None  # type: ignore[arg-type]
