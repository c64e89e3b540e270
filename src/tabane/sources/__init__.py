"""Sources, sections, paragraphs and citations."""
