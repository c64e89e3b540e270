"""tabane.recall: the evidence read (ARCHITECTURE.md §2). Above search and graph, below service.

plan (request, tunables, plans) → prepare (preset, gate, the question's vector) → lanes (one
Select per lane) → statement (the one statement) → gather (run it, title rule) → evidence (rows
to items) → order (rerank, cut to the budget) → render; pipeline runs these steps (gather → order
→ cut → render, then the trace and the access counters) and explain is its twin; trace, presets,
gate and overview serve it. The service only opens the transactions and calls the pipeline."""
