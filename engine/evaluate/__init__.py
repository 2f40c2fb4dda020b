"""Evaluation: how good a segmentation is, and the knobs that make it better.

`gold` reads where topics really start, `measure` scores a run against it
(Pk, WindowDiff, F1, sweeps, tuning), `snapshot` pins a run's cuts.
"""
