"""Small helpers shared by tests (importable because pytest puts tests/ on the path)."""

from __future__ import annotations

import itertools
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import httpx
import numpy as np

from tabane.models.embedder import Embedder, Vectors
from tabane.service import Tabane

_counter = itertools.count()


def unique(prefix: str) -> str:
    """A name no other test (or test process) uses."""
    return f"{prefix}{os.getpid()}x{next(_counter)}"


@contextmanager
def serve(app: Any) -> Iterator[str]:
    """Run `app` with uvicorn on a free port of 127.0.0.1 in a thread; yield its base URL."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, name="uvicorn")
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started:
            assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        assert not thread.is_alive()


@contextmanager
def serve_people(svc: Tabane, people: dict[str, Any]) -> Iterator[dict[str, httpx.Client]]:
    """`svc`'s app on a real socket whose principal resolver (the authentication seam) picks
    one of `people` by the `x-test-user` header; yield a client for each of them by name."""
    from tabane.api.app import create_app

    def principal(request: Any) -> Any:
        return people[request.headers["x-test-user"]]

    with serve(create_app(svc, principal)) as url:
        clients = {
            who: httpx.Client(base_url=url, headers={"x-test-user": who}, timeout=60)
            for who in people
        }
        try:
            yield clients
        finally:
            for c in clients.values():
                c.close()


class FakeClock:
    """A monotonic clock that only moves when the code under test sleeps (or a test advances it)."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


class Counting:
    """The real embedder, recording every text it embeds."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self.texts: list[str] = []

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        self.texts.extend(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> Vectors:
        return self.inner.embed_query(text)


class BadEmbedder:
    """An embedder that answers NaN rows (`mode="nan"`) or rows one too narrow (`"width"`)."""

    def __init__(self, mode: str) -> None:
        self.name = f"bad-{mode}"
        self.dim = 512
        self.mode = mode

    def embed_documents(self, texts: Sequence[str]) -> Any:
        if self.mode == "nan":
            return np.full((len(texts), self.dim), np.nan, dtype=np.float32)
        return np.ones((len(texts), self.dim - 1), dtype=np.float32)

    def embed_query(self, text: str) -> Any:
        return self.embed_documents([text])[0]


def queue_rebuilds(svc: Any, user: Any, context: str) -> None:
    """Queue the derived rebuilds as a claim write or a retraction does (service/graph_write.py); a
    write that queued them already finds them queued and adds none."""
    from tabane.contexts import contexts
    from tabane.jobs.rebuilds import derived_changed

    with svc.store.session(user) as session:
        ctx = contexts.resolve(session, context)
        derived_changed(session, user, ctx, graph=True, leaves=False)


def past_the_debounce(svc: Any, user: Any, context: str) -> None:
    """Make the context's queued jobs due now, as if the debounce had passed."""
    from sqlalchemy import func, update

    from tabane.contexts import contexts
    from tabane.storage.schema import Job

    with svc.store.session(user) as session:
        ctx_id = contexts.resolve(session, context).id
    with svc.store.admin() as session:
        session.execute(
            update(Job)
            .where(Job.context_id == ctx_id, Job.state == "queued")
            .values(run_after=func.now())
        )


def counting_beside(store: Any, user: Any) -> tuple[Any, list[object]]:
    """The store's second-connection runner for `user`, recording each read it is handed."""
    beside = store.beside(user)
    submitted: list[object] = []
    submit = beside.submit
    beside.submit = lambda read: submitted.append(read) or submit(read)
    return beside, submitted


def race(*calls: Callable[[], object]) -> list[object]:
    """Run the calls at once (threads released together); each one's result or exception."""
    barrier = threading.Barrier(len(calls))

    def run(call: Callable[[], object]) -> object:
        barrier.wait()
        try:
            return call()
        except Exception as exc:  # the outcome under test
            return exc

    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(run, calls))


class GatedSearch:
    """The service with `search` held at a gate, so heavy requests stay in flight until it opens."""

    def __init__(self, svc: Tabane) -> None:
        self._svc = svc
        self.gate = threading.Event()
        self.entered = 0
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._svc, name)

    def search(self, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            self.entered += 1
        assert self.gate.wait(30), "the gate never opened"
        return self._svc.search(*args, **kwargs)


def wait_until(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    """Wait until `condition()` holds; fail the test after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def in_threads(
    call: Callable[[], httpx.Response], n: int
) -> tuple[list[threading.Thread], list[int]]:
    statuses: list[int] = []

    def run() -> None:
        statuses.append(call().status_code)

    threads = [threading.Thread(target=run) for _ in range(n)]
    for t in threads:
        t.start()
    return threads, statuses


def espresso_profile(svc: Tabane, user: Any, context: str) -> Any:
    """Three claims about one concept, embedded, with its entity profile built; the recall
    request that asks about it."""
    from tabane.graph.claims.parse import ClaimInput
    from tabane.recall.plan import RecallRequest

    svc.add_claims(
        user,
        context,
        [
            ClaimInput("espresso", "needs", "finely ground beans", 1.0),
            ClaimInput("espresso", "brewed at", "nine bar of pressure", 1.0),
            ClaimInput("espresso", "base of", "cappuccino", 0.8),
        ],
    )
    svc.wait_for_jobs()
    svc.build_profiles(user, context)
    return RecallRequest("How is an espresso brewed, and what does it need?", (context,))


# Hannah's replies are embedded after what they answer, and what Ravi asks her carries her name
# and the topic's words; her statement of where she works says neither.
HANNAH_EXCHANGES = [
    ("Hannah, how are you? Still busy?", "Busy! I barely sat down all week."),
    ("Hannah, did work let you leave early for the quiz?", "No, I missed the first round."),
    ("Hannah, you looked tired after work yesterday.", "I was, the trains were a mess."),
    ("Hannah! Where were you at lunch?", "Stuck on a phone call, sorry."),
    ("Hannah, work dinner on Friday?", "Count me in, as long as it's not fish."),
    ("Hannah, are your work boots dry yet?", "Almost, they're by the radiator."),
    ("Any news from the coast?", "I got a job as a ranger at the national park last month."),
]


def remember_dated(
    svc: Tabane, user: Any, context: str, notes: list[tuple[str, str, str]]
) -> list[int]:
    """Remember each (speaker, day, text) as said on that day, wait for the jobs; the claim ids."""
    ids = [
        svc.remember(user, context, {"text": text, "valid_from": day}, speaker=who)
        for who, day, text in notes
    ]
    svc.wait_for_jobs()
    return ids
