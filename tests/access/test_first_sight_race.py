"""Processes that meet the same new user at once (several `tabane serve` starting on a fresh
store all create the local user) each get that one user, never a unique-violation traceback."""

from __future__ import annotations

import threading

from tabane.principal import Principal
from tabane.service import Tabane

from helpers import unique


def _sight(svc: Tabane, name: str, barrier: threading.Barrier, got: list[object]) -> None:
    barrier.wait()
    try:
        got.append(svc.ensure_user(name))
    except BaseException as exc:  # the assertion names it
        got.append(exc)


def test_concurrent_first_sight_of_one_user_makes_it_once(svc: Tabane) -> None:
    for _ in range(10):
        name, barrier, got = unique("first"), threading.Barrier(4), []
        threads = [
            threading.Thread(target=_sight, args=(svc, name, barrier, got)) for _ in range(4)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert all(isinstance(p, Principal) for p in got), got
        assert len({p.user_id for p in got if isinstance(p, Principal)}) == 1
