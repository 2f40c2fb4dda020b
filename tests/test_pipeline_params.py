"""A pipeline's parameters never change in place: `with_params` shares the file's memos."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import FrozenInstanceError
from pathlib import Path

import pytest

from chunkscope.engine.pipeline import STAGE_INPUTS, Pipeline, PipelineParams
from chunkscope.engine.segment.merge import MergeParams

LOG = Path(__file__).resolve().parents[1] / "sample_logs" / "cache_refactor.jsonl"


SEED = PipelineParams(merge=MergeParams(mode="seed"))


def test_with_params_is_a_new_pipeline_sharing_the_memos() -> None:
    base = Pipeline(LOG, SEED)
    one_pass = base.with_params(merge=MergeParams(max_passes=1, mode="seed"))
    assert base.params == SEED and one_pass.params.merge.max_passes == 1
    assert one_pass.same_file(base) and not one_pass.same_file(Pipeline(LOG))
    assert base.with_params() is base
    merged_one = one_pass.merged()
    merged_all = base.merged()
    assert len(merged_one.chunks) > len(merged_all.chunks)
    # Parsing, splitting and embedding ran once for both parameter sets.
    assert (base.runs["parse"], base.runs["embed"], base.runs["merge"]) == (1, 1, 2)
    with pytest.raises(FrozenInstanceError):
        base.params.min_chars = 3  # type: ignore[misc]


def test_concurrent_runs_need_no_outside_lock() -> None:
    """Threads asking for different parameters at once each get their own result, the
    same as a fresh pipeline computes alone."""
    base = Pipeline(LOG)
    params = [MergeParams(max_passes=n) for n in (1, 2, 3, 4)] * 3
    with ThreadPoolExecutor(max_workers=6) as pool:
        spans = list(pool.map(lambda m: base.with_params(merge=m).merged().spans, params))
    for merge, got in zip(params, spans, strict=True):
        assert got == Pipeline(LOG, PipelineParams(merge=merge)).merged().spans
    assert base.runs["merge"] == 4 and base.runs["embed"] == 1


def test_every_stage_key_reads_declared_parameters() -> None:
    params = PipelineParams()
    for stage, inputs in STAGE_INPUTS.items():
        assert all(hasattr(params, name) for name in inputs), stage
