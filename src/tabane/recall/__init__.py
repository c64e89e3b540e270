"""tabane.recall: the evidence read (ARCHITECTURE.md §2). Above search and graph, below service.

plan (request, tunables, plans) → lanes (one Select per lane) → statement (the one statement)
→ kernel (run it, title rule) → evidence (rows to items) → order (rerank, budget) → recall (the
kernel in one transaction); explain is its twin; render, trace, presets, gate and overview serve
the service around it."""
