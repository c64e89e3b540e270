"""What `compact` and `flush` answer (service/search.py). For a PostgreSQL store, compacting a
context means folding its fresh BM25 packs and masks into the merged rows (search/merge.py)
and packing its vocabulary bigram postings (graph/gram_merge.py) now, instead of when the
background jobs find them due: the reads then scan fewer, larger rows. VACUUM and ANALYZE are
not in it: they work on whole tables, every context's rows at once, which is the operator's
(autovacuum does it). Flushing means waiting, up to a deadline, for the jobs already queued for
the context (embedding, merges, derived rebuilds): PostgreSQL has made every committed write
durable already, so there is nothing else to write out."""

from __future__ import annotations

from dataclasses import dataclass

MAX_FLUSH_SECONDS = 300.0


@dataclass(frozen=True)
class Compaction:
    context: str
    sets: int  # scope sets compacted (those you may write)
    skipped: int  # scope sets you may read but not write: left for their writers' jobs
    fresh_before: int  # BM25 postings in packs not yet merged
    dead_before: int  # masked paragraph ids
    fresh_after: int
    dead_after: int
    terms: int  # merged rows rewritten
    gram_sets: int  # vocabulary bigram sets packed


@dataclass(frozen=True)
class Flush:
    context: str
    pending: int  # jobs of the context queued or running when the call began
    left: int  # still queued or running at the deadline (0: all done)
    seconds: float
