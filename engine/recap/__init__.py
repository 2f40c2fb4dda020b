"""The session recap: what an agent resuming the session reads first.

`collapse` turns tool calls into sentences, `sections` finds the procedural
sections, `core` scores, selects within a token budget, renders and stores.
"""
