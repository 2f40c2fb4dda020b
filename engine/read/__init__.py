"""Reading: a log or document file into a `Source` of turns.

`parse` is the entry point (`load`), `source` the pieces every reader is made of,
and `formats` one module per input format behind one registry.
"""
