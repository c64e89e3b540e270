"""tabane.recall: the evidence read (ARCHITECTURE.md §2). Above search and graph, below service.

Building blocks so far: the claims lane (`claims_lane`) and the title lane (`titles`)."""
