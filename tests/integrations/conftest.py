"""One small corpus, embedded, read by the retrievers locally and over a real socket: `tabane
serve`'s app behind the API-key door on a free port of 127.0.0.1 (helpers.serve)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tabane.api.app import create_app
from tabane.api.auth import key_resolver
from tabane.ingest.documents import DocumentInput
from tabane.principal import Principal
from tabane.service import Tabane

from helpers import serve, unique

ROOF = b"""# Roof garden

The roof garden opens at eight and closes at dusk.

## Watering

Tomatoes on the roof are watered by the drip line every morning at six.
"""
BIKES = b"""# Bicycles

Bicycles are parked in the basement rack; the rack code changes every month.
"""


@dataclass(frozen=True)
class Corpus:
    svc: Tabane
    user: Principal
    context: str


@pytest.fixture(scope="module")
def corpus(vsvc: Tabane) -> Corpus:
    name = unique("ig")
    vsvc.add_user(name)
    user = vsvc.principal(name)
    context = unique("igctx")
    vsvc.create_context(user, context)
    vsvc.ingest(user, context, DocumentInput("garden.md", data=ROOF))
    vsvc.ingest(user, context, DocumentInput("bikes.md", data=BIKES))
    assert vsvc.wait_for_jobs(contexts=[context]) == 0
    return Corpus(vsvc, user, context)


@pytest.fixture(scope="module")
def server(corpus: Corpus) -> Iterator[tuple[str, str]]:
    """The base URL of the app over the corpus's store, and an API key of its user."""
    token = corpus.svc.create_key(corpus.user.name).token
    with serve(create_app(corpus.svc, key_resolver(corpus.svc))) as url:
        yield url, token
