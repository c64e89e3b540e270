"""A value PostgreSQL cannot take, from any caller of the Python API: bad input, nothing written,
never an internal error. (HTTP and MCP refuse it earlier, naming the field.)"""

from __future__ import annotations

import pytest

from tabane.errors import InvalidInput
from tabane.ingest.documents import DocumentInput, block
from tabane.service import Tabane


@pytest.mark.parametrize(
    ("text", "problem"),
    [("tea\x00pot", "NUL character"), ("tea\udcffpot", "lone surrogate")],
)
def test_an_unstorable_text_writes_nothing(svc: Tabane, user, context, text, problem):
    doc = DocumentInput(source_id="pot", paragraphs=[block("A fine teapot."), block(text)])
    with pytest.raises(InvalidInput) as err:
        svc.ingest(user, context, doc)
    assert err.value.written == "nothing" and problem in err.value.issues[0].problem
    assert svc.list_sources(user, context).sources == []


def test_other_data_errors_are_not_taken_for_bad_input():
    from tabane.storage.store import unstorable

    assert unstorable(ZeroDivisionError()) is None
    assert unstorable(UnicodeEncodeError("utf-8", "\udcff", 0, 1, "surrogates not allowed"))
