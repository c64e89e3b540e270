"""Loopback stand-ins for the remote model services tabane talks to (the one seam where tests fake).

`openai_server` (OpenAI-compatible embeddings, and the `LoopbackServer` the others build on),
`chat_server` (chat completions, for the summarizer) and `rerank_server` (TEI and Cohere/Jina
rerank): real HTTP on 127.0.0.1, deterministic and scriptable. They live with the tests, not in the
package; `bench/recall_latency.py` borrows `rerank_server` from here.
"""
