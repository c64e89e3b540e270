"""Run by test_offline.py in a fresh interpreter: import both frameworks and tabane's
retrievers, retrieve over HTTP from a loopback server, and report every attempt to reach any
other host (refused, as with no network at all). argv: URL KEY CONTEXT [control]."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from typing import Any

ASK = "When does the roof garden open?"
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


def control() -> None:
    """What a download would do, seen and refused by the hook."""
    import httpx

    with contextlib.suppress(httpx.HTTPError):
        httpx.get("https://pypi.org/simple/")
    print(json.dumps({"reached": reached}))


def main(url: str, key: str, context: str) -> None:
    from tabane.integrations import langchain, llamaindex

    got: dict[str, int] = {}
    for name, module in (("langchain", langchain), ("llamaindex", llamaindex)):
        for kind in ("TabaneSearchRetriever", "TabaneRecallRetriever"):
            retriever = getattr(module, kind)(url=url, api_key=key, contexts=[context])
            if name == "langchain":
                docs = retriever.invoke(ASK) + asyncio.run(retriever.ainvoke(ASK))
                texts = [d.page_content for d in docs]
            else:
                nodes = retriever.retrieve(ASK) + asyncio.run(retriever.aretrieve(ASK))
                texts = [n.node.get_content(metadata_mode="llm") for n in nodes]
            got[f"{name}.{kind}"] = len(texts)
    frameworks = ("langchain_core", "llama_index.core", "nltk", "tiktoken")
    loaded = sorted(m for m in frameworks if m in sys.modules)
    print(json.dumps({"reached": reached, "got": got, "modules": loaded}))


if __name__ == "__main__":
    if sys.argv[4:] == ["control"]:
        control()
    else:
        main(*sys.argv[1:4])
