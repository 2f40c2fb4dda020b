"""The JSON of a run: its chunks, its merge, and the settings that produced them.

One builder for `chunkscope chunk --format json` (`tui.cli.chunk`) and the workbench's
JSON export (`tui.workbench.exports`), so both name the same things with the same keys
(docs/json.md): ``chunks`` the compacted chunks, ``merged`` the merged ones, ``merge`` the
passes and cuts, ``topics`` the first level, ``params`` the settings in force.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chunkscope.engine.model import Chunk
    from chunkscope.engine.pipeline import PipelineParams
    from chunkscope.engine.read.source import Source
    from chunkscope.engine.segment.merge import MergeResult


def iso(ts: Any, _seen: dict[Any, str] = {}) -> str | None:  # noqa: B006 - a cache
    """``ts.isoformat()`` (None stays None); chunks of one file share a few timestamps,
    so each is formatted once (a markdown file's every chunk has its mtime)."""
    if ts is None:
        return None
    # equal instants in other zones are equal datetimes: the offset is part of the key
    key = (ts, ts.utcoffset())
    text = _seen.get(key)
    if text is None:
        if len(_seen) > 4096:
            _seen.clear()
        text = _seen[key] = ts.isoformat()
    return text


def chunk_json(chunk: Chunk, index: int, tokens: int) -> dict[str, Any]:
    """One chunk's entry: its text, size, times, source lines and turn count."""
    lines = chunk.lines
    return {
        "index": index,
        "text": chunk.text,
        "chars": chunk.chars,
        "tokens": int(tokens),
        "start": iso(chunk.start),
        "end": iso(chunk.end),
        "lines": list(lines) if lines else None,
        "turn_count": len(chunk.turns),
    }


def topics_json(merged: MergeResult) -> list[dict[str, Any]]:
    """The topic level of a merge: each topic's lines, its merged chunks, why it starts."""
    out = []
    for i, (a, b) in enumerate(merged.topic_spans):
        lines = [c.lines for c in merged.chunks[a:b] if c.lines is not None]
        out.append(
            {
                "index": i,
                "lines": [lines[0][0], max(hi for _, hi in lines)] if lines else None,
                "chunks": [a, b - 1],
                "reason": merged.topic_reason(i),
            }
        )
    return out


def merge_settings(params: PipelineParams) -> dict[str, Any]:
    """The merge's settings in force: its ``mode``, the size cap both modes read, and the
    knobs of that mode alone (`engine.config.tuning.knob_modes`): the seed loop's
    (threshold, std_k, ...) in ``seed``, the topic segmenter's (``topic_*``, whose
    ``topic_unit_chars`` is then the compaction minimum) in ``topic``."""
    from chunkscope.engine.config.tuning import knob_modes
    from chunkscope.engine.params import knobs

    mode = params.merge.mode
    out: dict[str, Any] = {"mode": mode}
    for part in (params.merge, params.topic):
        for k in knobs(type(part)):
            if k.name != "mode" and mode in knob_modes(k.name):
                out[k.name] = getattr(part, k.name)
    return out


def run_json(
    source: Source,
    params: PipelineParams,
    counter: Any,
    chunks: Sequence[Chunk],
    tokens: Sequence[int],
) -> dict[str, Any]:
    """The document of a run up to its compacted ``chunks`` (`add_merge` adds the rest)."""
    return {
        "source": source.path,
        "kind": source.kind,
        "format": source.format,
        "container": source.file_container,
        "turns": len(source.turns),
        "skipped_lines": [p.as_dict() for p in source.skipped],
        "warnings": [p.as_dict() for p in source.warnings],
        **source.reading(),
        "tokenizer": {"name": counter.name, "accuracy": counter.accuracy},
        "params": {
            "min_chars": params.min_chars,
            "strict": params.strict,
            "collapse": params.collapses(source.kind),
        },
        "chunks": [chunk_json(c, i, tokens[i]) for i, c in enumerate(chunks)],
    }


def add_merge(
    doc: dict[str, Any],
    params: PipelineParams,
    merged: MergeResult,
    sims: Iterable[float],
    tokens: Sequence[int],
) -> None:
    """Add a merge to `doc`: the embedder and `merge_settings` to ``params``, the
    neighbour ``similarities``, the ``merge`` trace, the ``merged`` chunks (`tokens`
    their counts) and the ``topics``."""
    doc["params"]["embedder"] = params.embedder.label()
    doc["params"]["merge"] = merge_settings(params)
    doc["similarities"] = [round(float(x), 6) for x in sims]
    doc["merge"] = {
        "passes": len(merged.passes),
        "thresholds": [round(t, 6) for t in merged.thresholds],
        "cuts": [
            {
                "after": c.after,
                "reason": c.reason,
                "similarity": round(c.similarity, 6),
                "threshold": round(c.threshold, 6),
            }
            for c in merged.cuts
        ],
    }
    topic_of, over = merged.topic_of, merged.exceeds_limit
    doc["merged"] = [
        {
            **chunk_json(c, i, tokens[i]),
            "parts": list(range(*merged.spans[i])),
            "topic": topic_of[i],
            "exceeds_limit": over[i],
        }
        for i, c in enumerate(merged.chunks)
    ]
    doc["topics"] = topics_json(merged)


def add_strategy(pipe: Any, doc: dict[str, Any]) -> dict[str, Any]:
    """Add the run's strategy (name, parameters, information) to `doc`, and each of its
    ``chunks`` the strategy's ``meta`` and cut ``reason``; the strategy's information."""
    from chunkscope.engine.chunk.split import cut_reasons
    from chunkscope.engine.chunk.strategies import DEFAULT_STRATEGY

    result = pipe.strategy_result()
    chunks = doc.get("chunks", [])
    info: dict[str, Any] = result.info
    if pipe.params.strategy == DEFAULT_STRATEGY:
        # the pipeline's own split and compaction (`Pipeline.compact_spans`)
        raw, spans, kind = pipe.raw_chunks(), pipe.compact_spans(), pipe.source().kind
        reasons = cut_reasons(raw, spans, sections=pipe.params.by_section(kind))
        for entry, (start, end), reason in zip(chunks, spans, reasons, strict=False):
            entry["meta"] = {"raw_chunks": [start, end]}
            entry["reason"] = reason
        info = {"compacted": True, "raw_chunks": len(raw), "split": pipe.params.split_at(kind)}
    else:
        for entry, sc in zip(chunks, result.chunks, strict=False):
            entry["meta"] = sc.meta
            entry["reason"] = sc.reason
    doc["strategy"] = {
        "name": pipe.params.strategy,
        "params": result.params,
        "info": info,
    }
    return info
