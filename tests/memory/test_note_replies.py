"""A note remembered with what it answers (`in_reply_to`) is embedded with it, so a reply that
does not repeat the topic's words is found by a question about that topic; the text travels
through export and import."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from tabane.errors import InvalidInput
from tabane.graph.claims.vectors import claim_text
from tabane.principal import Principal
from tabane.recall.plan import RecallRequest
from tabane.service import Tabane
from tabane.storage.schema import Claim

from helpers import unique

ASKED = "Did you ever sign the lease on that pottery studio by the canal?"
REPLY = "Yes! Finally, yesterday afternoon. Keys on Friday."
OTHERS = [
    "The pottery fair on Saturday was packed, I sold six mugs.",
    "My canal walk was rained off again, so I stayed in and read.",
    "I think glazing is the hardest part of the whole craft.",
    "We finally fixed the leaking kitchen tap last weekend.",
]


def test_the_embedded_text_is_the_note_after_what_it_answers():
    assert claim_text(REPLY, None, None, None, None, ASKED) == f"{ASKED}\n{REPLY}"
    assert claim_text(REPLY, None, None, None, None, None) == REPLY
    assert claim_text(None, "a", "b", "c", -1.0, ASKED) == "a not b c"  # a triple replies to none


@pytest.mark.slow
def test_a_reply_is_found_by_the_topic_of_what_it_answers(
    vsvc: Tabane, make_user, make_context
) -> None:
    user = make_user()
    found = {}
    for replies in (False, True):
        context = make_context(user)
        for text in OTHERS:
            vsvc.remember(user, context, {"text": text}, speaker="Kim")
        extra = {"in_reply_to": ASKED} if replies else {}
        note = vsvc.remember(user, context, {"text": REPLY, **extra}, speaker="Kim")
        vsvc.wait_for_jobs()
        got = vsvc.recall(user, RecallRequest("Has Kim signed the studio lease?", (context,)))
        found[replies] = [it.citation.claim for it in got.items].index(note) + 1
    assert found[True] == 1 < found[False]


def test_only_a_statement_replies_and_the_reply_survives_an_archive(
    svc: Tabane, user: Principal, make_context
) -> None:
    context = make_context()
    with pytest.raises(InvalidInput) as err:
        svc.remember(
            user,
            context,
            {"text": "x", "subject": "a", "label": "b", "object": "c", "in_reply_to": 5},
        )
    assert "in_reply_to" in {i.path for i in err.value.issues}
    svc.remember(user, context, {"text": REPLY, "in_reply_to": ASKED}, speaker="Kim")
    archive = list(svc.export_context(user, context))
    claim = next(line["claim"] for line in archive if "claim" in line)
    assert claim["in_reply_to"] == ASKED
    copy = unique("copy")
    svc.import_context(user, [json.dumps(line) for line in archive], context=copy)
    with svc.store.session(user) as s:
        kept = s.scalars(select(Claim.in_reply_to).where(Claim.statement == REPLY)).all()
    assert kept == [ASKED, ASKED]
