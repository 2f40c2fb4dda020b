"""chunkscope: a workbench and a command line for chunking agent session logs.

One installed package. Its parts live in the repository's top-level folders and
are mapped here: `chunkscope.engine` (the pipeline, no UI), `chunkscope.tui` (the
workbench and the command), `chunkscope.themes`. In a checkout they are symbolic
links to those folders; the wheel ships them as plain folders in this package.
"""
