"""Retrievers for agent frameworks, installed as extras: `tabane[langchain]`
(`tabane.integrations.langchain`) and `tabane[llamaindex]` (`tabane.integrations.llamaindex`).

Each works over a `Tabane` opened in this process or over `tabane serve` (a URL and an API key);
client.py holds both ways in, passages.py the one mapping of hits and recall items to text,
score and citation metadata (docs/decisions/0016-integrations.md).
"""
