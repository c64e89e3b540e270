"""tabane (束ね): grounded memory for LLM agents.

The Python surface, imported lazily so `import tabane` stays cheap:

    import tabane

    with tabane.Tabane.open() as store:          # Settings.from_env(): the embedded store
        me = store.local_user()
        result = store.recall(me, tabane.RecallRequest("How deep can groups nest?",
                                                       contexts=("tabane-demo",)))
        print(result.rendered, result.recall_id)
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from tabane.config import Settings
    from tabane.graph.claims.parse import ClaimInput
    from tabane.ingest.documents import DocumentInput
    from tabane.recall.explain import Expected
    from tabane.recall.plan import RecallRequest
    from tabane.search.plan import SearchRequest
    from tabane.service import Tabane

_LAZY = {
    "Tabane": "tabane.service",
    "Settings": "tabane.config",
    "DocumentInput": "tabane.ingest.documents",
    "RecallRequest": "tabane.recall.plan",
    "Expected": "tabane.recall.explain",
    "SearchRequest": "tabane.search.plan",
    "ClaimInput": "tabane.graph.claims.parse",
}

__all__ = [
    "ClaimInput",
    "DocumentInput",
    "Expected",
    "RecallRequest",
    "SearchRequest",
    "Settings",
    "Tabane",
    "__version__",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'tabane' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value
