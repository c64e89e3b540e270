"""resolve / resolve_label: from a cue to the stored canonical spellings (resolver.py), its lexical
tiers, scoring, calibration and explain twin."""
