"""Neither framework reaches the network at import or use: a fresh interpreter with an audit hook
that refuses (and records) every connection and name lookup beyond loopback, an empty HOME (no
caches) and no proxy or tracing settings, runs both retrievers of both frameworks over HTTP."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain_core")
pytest.importorskip("llama_index.core")

PROBE = Path(__file__).with_name("offline_probe.py")
DROPPED = ("PROXY", "LANGCHAIN", "LANGSMITH", "NLTK", "TIKTOKEN", "LLAMA", "OPENAI")


@pytest.mark.slow  # a fresh interpreter imports both frameworks
def test_no_framework_reaches_the_network(
    corpus: Any, server: tuple[str, str], tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if not any(d in k.upper() for d in DROPPED)}
    env |= {"HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    url, key = server

    def probe(*control: str) -> dict[str, Any]:
        argv = [sys.executable, str(PROBE), url, key, corpus.context, *control]
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        return dict(json.loads(done.stdout.strip().splitlines()[-1]))

    assert probe("control")["reached"] == ["socket.getaddrinfo pypi.org"]  # the hook works
    report = probe()
    assert report["reached"] == []
    assert set(report["got"]) == {
        f"{f}.Tabane{k}Retriever" for f in ("langchain", "llamaindex") for k in ("Search", "Recall")
    }
    assert all(n > 0 for n in report["got"].values()), report["got"]
    assert {"langchain_core", "llama_index.core"} <= set(report["modules"])
    assert not list(tmp_path.rglob("*")), "something was cached under HOME"
