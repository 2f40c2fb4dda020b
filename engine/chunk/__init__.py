"""Chunking: turns into chunks.

`split` holds the seed's paragraph splitting and compaction, `strategies` the
other ways to split (blank-line, sliding-window, boundary, markdown, episodic).
Token counting, which every stage's budget uses, is `engine.tokens`.
"""
