"""Run by test_offline.py in a fresh interpreter: import both frameworks and tabane's
retrievers, retrieve over HTTP from a loopback server, and report every attempt to reach any
other host (refused, as with no network at all). argv: URL KEY CONTEXT [control]."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from typing import Any

LOOPBACK = {"127.0.0.1", "::1", "localhost"}
LOOKUPS = ("socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyaddr", "urllib.Request")
reached: list[str] = []


def no_network(event: str, args: tuple[Any, ...]) -> None:
    host = None
    if event == "socket.connect" and isinstance(args[1], tuple):
        host = args[1][0]
    elif event in LOOKUPS:
        host = args[0]
    if host is not None and str(host) not in LOOPBACK:
        reached.append(f"{event} {host}")
        raise OSError(f"offline: {event} {host}")


sys.addaudithook(no_network)

from tabane.integrations import langchain, llamaindex  # noqa: E402

url, key, context = sys.argv[1:4]
if sys.argv[4:] == ["control"]:  # the hook sees what a download would do
    import httpx

    with contextlib.suppress(httpx.HTTPError):
        httpx.get("https://pypi.org/simple/")
got: dict[str, int] = {}
for name, module in (("langchain", langchain), ("llamaindex", llamaindex)):
    for kind in ("TabaneSearchRetriever", "TabaneRecallRetriever"):
        cls = getattr(module, kind)
        if name == "langchain":
            retriever = cls(url=url, api_key=key, contexts=[context])
            found = retriever.invoke("the roof garden") + asyncio.run(retriever.ainvoke("roof"))
            texts = [d.page_content for d in found]
        else:
            retriever = cls(url=url, api_key=key, contexts=[context])
            nodes = retriever.retrieve("the roof garden") + asyncio.run(retriever.aretrieve("roof"))
            texts = [n.node.get_content(metadata_mode="llm") for n in nodes]
        got[f"{name}.{kind}"] = len(texts)
print(
    json.dumps(
        {
            "reached": reached,
            "got": got,
            "modules": sorted(
                m
                for m in ("langchain_core", "llama_index.core", "nltk", "tiktoken")
                if m in sys.modules
            ),
        }
    )
)
