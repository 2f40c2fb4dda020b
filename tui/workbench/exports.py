"""The workbench's export formats: merged chunks as JSON or markdown.

The JSON follows `chunkscope chunk --embed --format json`'s ``merged`` entries, plus
each chunk's cut and (when known) its summary.
"""

from __future__ import annotations

import json
import re
from typing import Any

from chunkscope.engine.summarize.base import summary_rest
from chunkscope.tui.workbench.runs import RunView


def _iso(ts: Any) -> str | None:
    return ts.isoformat() if ts is not None else None


def _tokens(view: RunView, counter: Any) -> list[int]:
    """The merged chunks' token counts: the view's, or counted now if it has none yet."""
    if view.merged_tokens is not None:
        return view.merged_tokens
    return list(counter.count_many([c.text for c in view.result.chunks]))


def merged_json(view: RunView, summaries: dict[str, Any], counter: Any) -> str:
    result = view.result
    tokens = _tokens(view, counter)
    chunks = []
    for i, c in enumerate(result.chunks):
        start, end = result.spans[i]
        cut = result.cut_after(i)
        summary = summaries.get(c.text)
        chunks.append(
            {
                "index": i,
                "text": c.text,
                "chars": c.chars,
                "tokens": int(tokens[i]),
                "tokens_exact": view.merged_tokens_exact,
                "start": _iso(c.start),
                "end": _iso(c.end),
                "lines": list(c.lines) if c.lines else None,
                "parts": list(range(start, end)),
                "cut_after": None
                if cut is None
                else {
                    "reason": cut.reason,
                    "similarity": round(cut.similarity, 6),
                    "threshold": round(cut.threshold, 6),
                },
                "summary": None if summary is None else summary.as_dict(),
            }
        )
    from dataclasses import asdict

    doc = {
        "source": view.source.path,
        "kind": view.source.kind,
        "params": {"min_chars": view.params.min_chars, "merge": asdict(view.params.merge)},
        "passes": len(result.passes),
        "thresholds": [round(t, 6) for t in result.thresholds],
        "merged": chunks,
    }
    return json.dumps(doc, ensure_ascii=False, indent=2, default=str) + "\n"


def _fence(text: str) -> str:
    longest = max((len(m) for m in re.findall(r"`{3,}", text)), default=2)
    return "`" * max(3, longest + 1)


def merged_markdown(view: RunView, summaries: dict[str, Any], counter: Any) -> str:
    result = view.result
    tokens = _tokens(view, counter)
    out = [f"# Merged chunks of {view.source.path}", ""]
    for i, c in enumerate(result.chunks):
        roles = ", ".join(c.roles)
        out.append(f"## Chunk {i} · {c.time_range} · {roles}")
        out.append("")
        out.append(f"{c.chars} chars, {tokens[i]} tokens ({counter.name})")
        cut = result.cut_after(i)
        if cut is not None:
            out.append(f"Cut after: {cut}")
        summary = summaries.get(c.text)
        if summary is not None:  # said once, labelled, as the Summary panel shows it
            abstract = summary.abstract.strip()
            rest = summary_rest(abstract, summary.summary)
            if rest:
                out.extend(["", f"**Abstract:** {abstract}", "", f"**Summary:** {rest}"])
            else:
                out.extend(["", f"**Abstract (the whole summary):** {abstract}"])
        fence = _fence(c.text)
        out.extend(["", f"{fence}text", c.text, fence, ""])
    return "\n".join(out)
