"""The workbench's export formats: a run as JSON or its merged chunks as markdown.

The JSON is `chunkscope chunk --embed --format json`'s document for the run on screen,
built by the same `engine.runjson` (the same keys: ``chunks`` the compacted chunks,
``merged`` the merged ones, ``params.merge`` the settings of the mode in force), plus
each merged chunk's ``summary`` when known: its abstract, and the summary without the
abstract's sentence (`summary_rest`, as the Summary panel and the markdown export say it
once).
"""

from __future__ import annotations

import json
import re
from typing import Any

from chunkscope.engine.recap.core import NO_SUMMARY_WHY
from chunkscope.engine.runjson import add_merge, run_json
from chunkscope.engine.summarize.base import summary_rest
from chunkscope.tui.workbench.runs import RunView


def _tokens(view: RunView, counter: Any) -> list[int]:
    """The merged chunks' token counts: the view's when exact, else counted now."""
    if view.merged_tokens is not None and view.merged_tokens_exact:
        return view.merged_tokens
    return list(counter.count_many([c.text for c in view.result.chunks]))


def merged_json(view: RunView, summaries: dict[str, Any], counter: Any, pipe: Any = None) -> str:
    """The run of `view` as the CLI's JSON document; `pipe` (the run's pipeline) adds
    the strategy when the run uses one other than the default, as ``--strategy`` does."""
    from chunkscope.engine.chunk.strategies import DEFAULT_STRATEGY

    ctokens = view.compact_tokens
    if ctokens is None:
        ctokens = list(counter.count_many([c.text for c in view.compacted]))
    doc = run_json(view.source, view.params, counter, view.compacted, ctokens)
    if pipe is not None and view.params.strategy != DEFAULT_STRATEGY:
        from chunkscope.engine.runjson import add_strategy

        add_strategy(pipe, doc)
    add_merge(doc, view.params, view.result, view.sims, _tokens(view, counter))
    for entry, c in zip(doc["merged"], view.result.chunks, strict=True):
        summary = summaries.get(c.text)
        entry["summary"] = None if summary is None else _said_once(summary)
    return json.dumps(doc, ensure_ascii=False, indent=2, default=str) + "\n"


def _said_once(summary: Any) -> dict[str, Any]:
    """A summary as the JSON export writes it: `Summary.as_dict`, its ``summary`` without
    the sentence that is its ``abstract`` (empty when the abstract is the whole summary)."""
    out: dict[str, Any] = summary.as_dict()
    out["summary"] = summary_rest(summary.abstract, summary.summary)
    return out


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
            if not abstract:  # no label left empty (walk 19, 10): said as the panel says it
                out.extend(["", f"*No summary: {NO_SUMMARY_WHY}.*"])
            elif rest:
                out.extend(["", f"**Abstract:** {abstract}", "", f"**Summary:** {rest}"])
            else:
                out.extend(["", f"**Abstract (the whole summary):** {abstract}"])
        fence = _fence(c.text)
        out.extend(["", f"{fence}text", c.text, fence, ""])
    return "\n".join(out)
