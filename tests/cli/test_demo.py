"""`tabane demo`, the README's first command: the sample corpus, search, the graph, run twice."""

from __future__ import annotations

import re
import time

import pytest

from tabane.cli.commands import demo
from tabane.principal import Principal
from tabane.service import Tabane


@pytest.mark.slow
def test_the_demo_runs_twice_and_the_second_run_changes_nothing(svc: Tabane, make_user) -> None:
    user: Principal = make_user()
    first: list[str] = []
    demo.run(svc, user, first.append, time.monotonic())
    text = "\n".join(first)
    assert "created context 'tabane-demo'" in text or "exists" in text
    assert "graph: wrote 4 claims" in text or "graph: claims already written" in text
    assert "resolve 'Contxt': context (fuzzy" in text
    assert "context -holds-> source weight +1.0 (contexts-and-scopes.md, paragraph" in text
    bundle = text.split("recall 'How deep can groups nest?': ", 1)[1]
    assert "Question: How deep can groups nest?" in bundle
    # the answer's paragraph, cited by title, source id, section and paragraph
    cited = re.search(
        r"\[\d+\] source excerpt \| \"Contexts, groups and scopes\" \(contexts-and-scopes\.md\), "
        r"[^|\n]*> Groups, paragraph \d+ \| scopes: user:\S+\nGroups may nest, but never",
        bundle,
    )
    assert cited, bundle
    second: list[str] = []
    demo.run(svc, user, second.append, time.monotonic())
    again = "\n".join(second)
    assert "graph: claims already written" in again
    ingested = [line for line in again.split("\ncontexts:")[0].splitlines() if "paragraphs" in line]
    assert ingested and all("skipped (unchanged)" in line for line in ingested), ingested
    assert "weight +1.0" in again and "weight +2.0" not in again
