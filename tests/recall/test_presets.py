"""Presets: a TOML file of named recall configurations, checked field by field."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tabane.config import Settings
from tabane.errors import InvalidInput, NoPreset, NotFound, TemplateError
from tabane.ingest.documents import DocumentInput, block
from tabane.recall.explain import Expected
from tabane.recall.plan import RecallRequest
from tabane.recall.presets import (
    DEFAULT,
    DEFAULT_OVERVIEW_CHARS,
    Preset,
    load_presets,
    preset_named,
)
from tabane.service import Tabane
from tabane.storage import embedded


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "presets.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _problems(path: Path) -> dict[str, str]:
    with pytest.raises(InvalidInput) as caught:
        load_presets(path)
    assert str(path) in caught.value.message
    return {i.path: i.problem for i in caught.value.issues}


def test_no_file_gives_the_default_preset_only() -> None:
    presets = load_presets(None)
    assert presets == {"default": DEFAULT}
    assert DEFAULT.contexts == () and DEFAULT.groups == ()
    assert DEFAULT.budget is None and DEFAULT.template is None
    assert DEFAULT.gate is True and DEFAULT.overview is False
    assert DEFAULT.overview_chars == DEFAULT_OVERVIEW_CHARS


def test_a_full_preset_with_a_template_relative_to_the_file(tmp_path: Path) -> None:
    (tmp_path / "docs.j2").write_text("{{ question }}")
    path = _write(
        tmp_path,
        """
[presets.docs]
description = "the shared docs plus my desk"
contexts = ["docs", "desk"]
groups = ["manuals"]
budget = 1500
template = "docs.j2"
gate = false
overview = true
overview_chars = 800

[presets.minimal]
""",
    )
    presets = load_presets(path)
    assert sorted(presets) == ["default", "docs", "minimal"]
    assert presets["docs"] == Preset(
        name="docs",
        contexts=("docs", "desk"),
        groups=("manuals",),
        budget=1500,
        template=tmp_path / "docs.j2",
        gate=False,
        overview=True,
        overview_chars=800,
        description="the shared docs plus my desk",
    )
    assert presets["minimal"] == Preset(name="minimal")
    assert presets["default"] is DEFAULT


def test_the_file_may_redefine_default(tmp_path: Path) -> None:
    path = _write(tmp_path, '[presets.default]\ncontexts = ["notes"]\nbudget = 500\n')
    default = load_presets(path)["default"]
    assert (default.contexts, default.budget) == (("notes",), 500)


def test_every_problem_is_reported_with_its_path(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        """
title = "stray"

[presets.docs]
contexts = ["docs", 3, "", "docs"]
groups = "manuals"
budget = 0
gate = "yes"
overview_chars = true
template = "missing.j2"
budgit = 10

[presets.big]
budget = 10_000_000

[presets."bad name!"]

[presets.flat]
overview = 1
""",
    )
    problems = _problems(path)
    assert problems["title"].startswith("unknown key")
    assert problems["presets.docs.contexts[1]"] == "not a string"
    assert problems["presets.docs.contexts[2]"] == "empty"
    assert problems["presets.docs.contexts[3]"] == "duplicate of 'docs'"
    assert problems["presets.docs.groups"] == "not a list of names"
    assert problems["presets.docs.budget"] == "not a positive integer"
    assert problems["presets.docs.gate"] == "not true or false"
    assert problems["presets.docs.overview_chars"] == "not a positive integer"
    assert problems["presets.docs.template"].startswith("no such file: ")
    assert problems["presets.docs.budgit"] == "unknown key"
    assert problems["presets.big.budget"] == "10000000 is more than 200000"
    assert "presets.bad name!" in problems
    assert problems["presets.flat.overview"] == "not true or false"
    assert len(problems) == 13


def test_presets_must_be_tables(tmp_path: Path) -> None:
    assert _problems(_write(tmp_path, 'presets = "docs"\n')) == {"presets": "not a table"}
    assert _problems(_write(tmp_path, "[presets]\ndocs = 3\n")) == {"presets.docs": "not a table"}


def test_a_missing_or_broken_file_is_named(tmp_path: Path) -> None:
    missing = tmp_path / "nope.toml"
    assert _problems(missing) == {str(missing): "no such file"}
    broken = _write(tmp_path, "[presets.docs\n")
    problems = _problems(broken)
    assert "line 1" in problems[str(broken)]


def test_preset_named(tmp_path: Path) -> None:
    presets = load_presets(_write(tmp_path, "[presets.docs]\n"))
    assert preset_named(presets, "docs").name == "docs"
    with pytest.raises(NoPreset) as caught:
        preset_named(presets, "doc")
    assert isinstance(caught.value, NotFound)
    assert caught.value.code == "no_preset" and caught.value.status == 404
    assert [(i.path, i.problem) for i in caught.value.issues] == [
        ("preset", "unknown; known: default, docs")
    ]


def test_recall_settings_are_read_and_checked_at_start_up(tmp_path: Path) -> None:
    base = {"TABANE_HOME": str(tmp_path), "TABANE_USER": "u"}
    plain = Settings.from_env(base)
    assert (plain.recall_budget, plain.chars_per_token) == (2000, 4.0)
    assert (plain.recall_template, plain.presets) == (None, None)
    set_ = Settings.from_env(
        base
        | {
            "TABANE_RECALL_BUDGET": "1500",
            "TABANE_CHARS_PER_TOKEN": "1.5",
            "TABANE_RECALL_TEMPLATE": "~/t.j2",
            "TABANE_PRESETS": str(tmp_path / "p.toml"),
        }
    )
    assert (set_.recall_budget, set_.chars_per_token) == (1500, 1.5)
    assert set_.recall_template == Path("~/t.j2").expanduser()
    assert set_.presets == tmp_path / "p.toml"
    for key, value in [
        ("TABANE_RECALL_BUDGET", "0"),
        ("TABANE_RECALL_BUDGET", "200001"),
        ("TABANE_RECALL_BUDGET", "lots"),
        ("TABANE_CHARS_PER_TOKEN", "0.4"),
        ("TABANE_CHARS_PER_TOKEN", "21"),
        ("TABANE_CHARS_PER_TOKEN", "nan"),
    ]:
        with pytest.raises(InvalidInput) as caught:
            Settings.from_env(base | {key: value})
        assert caught.value.issues[0].path == key


def test_a_broken_presets_or_template_file_stops_the_start(tmp_path: Path) -> None:
    base = {"TABANE_HOME": str(tmp_path / "home"), "TABANE_USER": "u", "TABANE_EMBEDDER": "none"}
    presets = _write(tmp_path, "[presets.zero]\nbudget = 0\n")
    with pytest.raises(InvalidInput) as caught:
        Tabane.open(Settings.from_env(base | {"TABANE_PRESETS": str(presets)}))
    assert [i.path for i in caught.value.issues] == ["presets.zero.budget"]
    template = tmp_path / "bad.j2"
    template.write_text("{% for x in %}\n", encoding="utf-8")
    with pytest.raises(TemplateError):
        Tabane.open(Settings.from_env(base | {"TABANE_RECALL_TEMPLATE": str(template)}))
    assert not (tmp_path / "home").exists()  # refused before the store was made


def test_a_presets_template_is_compiled_with_the_file(tmp_path: Path) -> None:
    (tmp_path / "broken.j2").write_text("ok\n{% for x in %}\n", encoding="utf-8")
    path = _write(tmp_path, '[presets.docs]\ntemplate = "broken.j2"\n')
    with pytest.raises(InvalidInput) as caught:
        load_presets(path)
    assert [(i.path, i.problem.split(":")[0]) for i in caught.value.issues] == [
        ("presets.docs.template", "template")
    ]


@pytest.mark.slow
def test_the_presets_read_at_start_serve_every_recall(tmp_path: Path) -> None:
    home = tmp_path / "home"
    base = {"TABANE_HOME": str(home), "TABANE_USER": "u", "TABANE_EMBEDDER": "none"}
    path = _write(
        tmp_path,
        '[presets.small]\nbudget = 300\ncontexts = ["desk"]\ntemplate = "t.j2"\n'
        '[presets.gone]\ncontexts = ["attic"]\n'
        '[presets.odd]\ncontexts = ["desk"]\ntemplate = "odd.j2"\n'
        '[presets.mapped]\ncontexts = ["desk"]\noverview = true\n',
    )
    (tmp_path / "t.j2").write_text("Q: {{ question }}", encoding="utf-8")
    (tmp_path / "odd.j2").write_text("{{ question }}\n{{ answer.text }}", encoding="utf-8")
    svc = Tabane.open(Settings.from_env(base | {"TABANE_PRESETS": str(path)}))
    try:
        user = svc.local_user()
        svc.create_context(user, "desk")
        path.write_text("[presets.small]\nbudget = 0\n", encoding="utf-8")  # broken after start
        (tmp_path / "t.j2").write_text("{% for %}", encoding="utf-8")
        listed = {p.name: p for p in svc.presets(user)}
        # "gone" names only "attic", no context this user can see: neither listed nor used
        assert sorted(listed) == ["default", "mapped", "odd", "small"]
        assert (listed["small"].contexts, listed["small"].budget) == (("desk",), 300)
        assert listed["small"].template == "t.j2" and listed["mapped"].overview
        got = svc.recall(user, RecallRequest("what is on the desk today?", preset="small"))
        assert got.trace.budget_tokens == 300 and got.trace.contexts == ("desk",)
        assert got.rendered == "Q: what is on the desk today?"  # the template read at start
        with pytest.raises(NoPreset) as gone:  # refused without naming what it hides
            svc.recall(user, RecallRequest("what is in the attic today?", preset="gone"))
        assert [i.path for i in gone.value.issues] == ["preset"]
        assert "attic" not in str(gone.value.issues) + gone.value.message
        # a template that fails to render fails recall and its explain twin alike: explain
        # gives no verdict about a bundle that cannot be written
        svc.ingest(
            user, "desk", DocumentInput("lamp", paragraphs=[block("A lamp is on the desk today.")])
        )
        odd = RecallRequest("what is on the desk today?", preset="odd")
        for call in (
            lambda: svc.recall(user, odd),
            lambda: svc.explain_recall(user, odd, Expected("desk", "lamp", 0)),
        ):
            with pytest.raises(TemplateError) as broken:
                call()
            assert [i.path for i in broken.value.issues] == ["template:2"]
        mapped = svc.recall(user, RecallRequest("what is on the desk today?", preset="mapped"))
        assert "Overview:" in mapped.rendered and "lamp" in mapped.rendered
        hello = svc.recall(user, RecallRequest("hi there", preset="mapped"))  # a trivial turn
        assert hello.trace.gate is not None and "Overview" not in hello.rendered
        plain = svc.explain_recall(user, replace(odd, preset="small"), Expected("desk", "lamp"))
        assert plain.verdict == "served"
        # the source's context defaults to the one context read: the preset's, here
        within = svc.explain_recall(user, replace(odd, preset="small"), Expected(None, "lamp"))
        assert (within.verdict, within.key) == ("served", plain.key)
        with pytest.raises(InvalidInput) as which:  # two contexts read: say which
            wide = RecallRequest("what is on the desk?", contexts=("desk", "attic"))
            svc.explain_recall(user, wide, Expected(None, "lamp"))
        assert [i.path for i in which.value.issues] == ["expected.context"]
    finally:
        svc.close()
        embedded.stop(home)
