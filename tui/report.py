"""A run as one self-contained HTML page to share (`chunkscope report FILE -o REPORT.html`).

`gather` reads what a run of the recap pipeline computed (the pipeline's memoised
stages, its merge with the cut of every boundary, the recap's selection) into a
`Report` of plain values; `render_html` writes the page. The page needs nothing but
itself: inline CSS, an inline SVG plot, no script, no font or image from elsewhere, so
it opens offline and in a mail attachment alike. It reads at phone width and prints
(CSS media queries). Every text that comes from the file, the summarizer or the
command line is escaped (`html.escape`, control characters and terminal escapes
removed): log text is data, never markup.

What the page shows: the header (file, format, turns, tokenizer, embedder, the
parameters and the command that reproduces them), the score against gold topic starts
when given, a plot along the file (the similarity of neighbouring chunks; in topic mode
also the depth score and its threshold; the cuts by reason; the gold marks, found or
missed), the topics (when the merge gives them) and the merged chunks with their sizes,
cut reasons and summaries, then the recap: its text, what fit the budget and what did
not, and every other part of the selection's JSON document (`Selection.as_dict`)
rendered generically, so a section the recap gains shows without a change here.

This module uses the engine only (never textual or rich).
"""

from __future__ import annotations

import bisect
import html
import json
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from chunkscope.engine import __version__
from chunkscope.engine.evaluate.measure import score_text
from chunkscope.engine.recap.core import NO_SUMMARY_WHY
from chunkscope.engine.segment.merge import cut_name
from chunkscope.engine.textutil import plural, strip_control

if TYPE_CHECKING:
    from chunkscope.engine.config.tuning import Tuning
    from chunkscope.engine.evaluate.measure import IntArray, Scores
    from chunkscope.engine.pipeline import Pipeline, PipelineParams
    from chunkscope.engine.read.source import Source
    from chunkscope.engine.recap.core import Selection
    from chunkscope.engine.search import Query, RetrievalScore, SearchParams
    from chunkscope.engine.segment.merge import MergeResult

#: At most this many points per curve: a long file's curve is bucketed (each bucket
#: keeps its lowest similarity and its highest depth, so a dip that cut never vanishes).
PLOT_POINTS = 800
#: Characters of a chunk shown from its start and from its end.
PREVIEW_HEAD = 700
PREVIEW_TAIL = 300

#: The colour of each cut reason (the seed loop's and the topic segmenter's).
REASON_COLOURS = {
    "threshold": "#2b6cb0",
    "topic": "#2b6cb0",
    "structure": "#6b46c1",
    "size_cap": "#c05621",
    "chunk_size": "#718096",
    "min_similarity": "#b7791f",
    "max_passes": "#718096",
}
#: Which reason a column of many cuts shows (the rarer, the more telling).
CUT_PRIORITY = {"size_cap": 3, "min_similarity": 2, "max_passes": 1, "structure": 1}
HIT, MISS = "#2f855a", "#c53030"
#: More cuts than this are drawn as ticks under the curves, not lines across them.
DENSE_CUTS = 150


# --------------------------------------------------------------------------- the data


@dataclass(frozen=True)
class ChunkRow:
    """One merged chunk as the page lists it."""

    index: int
    time_range: str
    turns: int
    chars: int
    tokens: int
    lines: tuple[int, int] | None
    parts: tuple[int, int]  # compacted chunks, half-open
    head: str
    tail: str  # "" when the head holds the whole text
    summary: str
    cut_reason: str | None  # of the cut after it (None: the last chunk)
    cut_detail: str
    recap: str  # the selection's reason: kept, pinned, excluded, over budget
    topic: int | None = None
    exceeds: bool = False  # one unit larger than the size cap, kept whole
    part_word: str = "turn"  # what its turns are called: a document's are paragraphs


@dataclass(frozen=True)
class TopicRow:
    """A topic: a run of merged chunks (``chunks`` half-open) and why it starts."""

    index: int
    chunks: tuple[int, int]
    lines: tuple[int, int] | None
    reason: str


@dataclass(frozen=True)
class Curve:
    """A series along the file: values at character positions, and a threshold."""

    label: str
    x: list[float]
    y: list[float]
    threshold: float | None
    threshold_label: str


@dataclass(frozen=True)
class Plot:
    """What the SVG shows: curves over ``0..length`` characters, the cuts and the marks."""

    length: int
    curves: list[Curve]
    cuts: list[tuple[float, str, str]]  # (position, reason, tooltip)
    gold: list[tuple[float, bool, int]]  # (position, found, source line)
    hits: set[float] = field(default_factory=set)  # cut positions a gold start matched
    topic: bool = False  # the topic segmenter's cuts (their names: `cut_name`)


@dataclass(frozen=True)
class Report:
    title: str
    facts: list[tuple[str, str]]
    params: list[tuple[str, str, bool]]  # (flag or name, value, is the default)
    command: str
    chunks: list[ChunkRow]
    topics: list[TopicRow] | None
    plot: Plot
    selection: dict[str, Any]
    recap_text: str
    budget: int
    used_tokens: int
    scores: Scores | None = None
    tolerance: int = 0
    notes: list[str] = field(default_factory=list)
    retrieval: RetrievalScore | None = None
    #: The command shows a path by its name only (`shown_path`: folders kept off the
    #: page): the page says so, as running it writes `-o` to the current folder.
    folders_dropped: bool = False
    #: Of those paths, ``-o``'s: running the command writes the page to the current folder.
    output_dropped: bool = False
    #: What the command cannot say of the run (the workbench's unsaved topic marks).
    command_note: str = ""


#: Beside "the same run" when a path in it lost its folders (`Report.folders_dropped`):
#: `shown_path` names an absolute path, or one through ``..``, by its name only (walk
#: 21, F3: the note said "outside the current folder" of a path below it, given whole).
FOLDERS_DROPPED_NOTE = (
    "(absolute paths and paths through .. name the file only; --full-path shows folders)"
)
#: The same when ``-o``'s path is one of them (`Report.output_dropped`).
OUTPUT_DROPPED_NOTE = (
    "(absolute paths and paths through .. name the file only, -o too: this writes the "
    "page here; --full-path shows folders)"
)


# --------------------------------------------------------------------------- gathering


def _offsets(sizes: Sequence[int]) -> np.ndarray:
    out = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(np.asarray(sizes, dtype=np.int64), out=out[1:])
    return out


def _bucket(
    x: np.ndarray, y: np.ndarray, low: bool, points: int = PLOT_POINTS
) -> tuple[list[float], list[float]]:
    """At most `points` points of (x, y): each bucket keeps its lowest (or highest) y.
    A value that is not finite (the cosine of an empty vector) is drawn as 0."""
    y = np.nan_to_num(np.asarray(y, dtype=float), nan=0.0, posinf=0.0, neginf=0.0)
    if len(y) <= points:
        return x.astype(float).tolist(), y.astype(float).tolist()
    edges = np.linspace(0, len(y), points + 1).astype(np.int64)
    starts = edges[:-1]
    picked = (np.minimum if low else np.maximum).reduceat(y, starts)
    centres = (x[starts] + x[edges[1:] - 1]) / 2
    return centres.astype(float).tolist(), picked.astype(float).tolist()


def _topics(merged: MergeResult, rows: Sequence[ChunkRow]) -> list[TopicRow] | None:
    """The merge's topics when it has that level above the merged chunks (a topic
    segmentation whose topics were split to fit the size cap); None when every merged
    chunk is its own topic, so the page lists the chunks alone."""
    if merged.topic_bounds is None:
        return None
    spans = merged.topic_spans
    if all(end - start == 1 for start, end in spans):
        return None
    out: list[TopicRow] = []
    for i, (start, end) in enumerate(spans):
        first, last = rows[start].lines, rows[end - 1].lines
        lines = (first[0], last[1]) if first and last else None
        out.append(TopicRow(i, (start, end), lines, str(merged.topic_reason(i))))
    return out


def _clean(text: str) -> str:
    return strip_control(text)


def _preview(text: str) -> tuple[str, str]:
    """The start and the end of a chunk's text ("" for the end when the start holds it)."""
    if len(text) <= PREVIEW_HEAD + PREVIEW_TAIL:
        return _clean(text), ""
    return _clean(text[:PREVIEW_HEAD]), _clean(text[-PREVIEW_TAIL:])


def _params(tuning: Tuning) -> list[tuple[str, str, bool]]:
    """The knobs the run's mode reads (`engine.config.tuning.knob_modes`): flag, value, whether
    it is the default."""
    from chunkscope.engine.config.tuning import exclusive_group, knob_modes
    from chunkscope.engine.params import knobs

    mode = tuning.merge.mode
    values = tuning.values()
    out: list[tuple[str, str, bool]] = []
    for part in (tuning.compact, tuning.merge, tuning.topic, tuning.recap):
        by_mode = part is tuning.merge or part is tuning.topic
        for k in knobs(type(part)):
            if by_mode and k.name != "mode" and mode not in knob_modes(k.name):
                continue
            value = getattr(part, k.name)
            if value == k.default and any(
                values[other] is not None for other in exclusive_group(k.name)
            ):
                continue  # the group's other knob is in force (a cap in tokens: no chars)
            out.append((k.flag or k.name, _value_shown(value), value == k.default))
    return out


def _with_count_knob(tuning: Tuning, pipe: Pipeline) -> Tuning:
    """`tuning` with the value of the knob ``--chunks N``/``--topics N`` set
    (`Pipeline.count_knob`) as the run used it, not as the settings had it (walk 28, F6:
    the table said ``--topic-depth 7`` for a page made at depth 4.17)."""
    from dataclasses import replace

    part = "topic" if pipe.params.merge.mode == "topic" else "merge"
    knob, used = pipe.count_knob(), pipe.count_knob_value()
    if getattr(getattr(tuning, part), knob) == used:
        return tuning
    return replace(tuning, **{part: replace(getattr(tuning, part), **{knob: used})})


def _value_shown(value: Any) -> str:
    """A knob's value in the flags table: as JSON and config files have it."""
    from chunkscope.engine.config.settings import toml_value

    if value is None or isinstance(value, bool) or value == "":
        return toml_value(value)  # an empty text says `""`, not an empty cell
    return f"{value:g}" if isinstance(value, float) else str(value)


def _strategy_params(params: PipelineParams) -> list[tuple[str, str, bool]]:
    """``--strategy`` and its parameters' flags, when the run's strategy is not the
    default (walk 26, F10: `--topic-markers` was set and in no row). A ``--no-X`` flag's
    row says whether the flag is given."""
    from chunkscope.engine.chunk.strategies import DEFAULT_STRATEGY, make_params, param_specs

    if params.strategy == DEFAULT_STRATEGY:
        return []
    made = make_params(params.strategy, params.strategy_params)
    out = [("--strategy", params.strategy, False)]
    for spec in param_specs(params.strategy):
        if spec.flag is None:
            continue
        value = getattr(made, spec.name)
        given = not value if spec.flag.startswith("--no-") else value
        out.append((spec.flag, _value_shown(given), value == spec.default))
    return out


def _option_rows(
    extra: Sequence[str],
    params: Sequence[tuple[str, str, bool]],
    full: bool,
    paths: Collection[str] = (),
) -> list[tuple[str, str, bool]]:
    """The options given beside the knobs (`extra`: ``--tokenizer o200k_base``,
    ``--headings``, ``--gold FILE``) as rows of the flags table, each set, a path by its
    name (`shown_path`): every flag that shaped the page has its row (walk 27, F8). A
    flag the knobs' rows have already (a strategy's) is not said twice."""
    known = {flag for flag, _, _ in params}
    private = set(paths)
    rows: list[tuple[str, str, bool]] = []
    i = 0
    while i < len(extra):
        flag = extra[i]
        has_value = i + 1 < len(extra) and not extra[i + 1].startswith("--")
        value = extra[i + 1] if has_value else "true"
        i += 2 if has_value else 1
        if flag.startswith("--") and flag not in known:
            shown = shown_path(value, full) if value in private else value
            rows.append((flag, shown, False))
    return rows


def _marked(selection: Selection) -> list[tuple[str, str, bool]]:
    """The merged chunks pinned and excluded in the recap, as `chunkscope report`'s
    ``--pin I,J`` and ``--exclude I,J`` (rows of the flags table and words of the same
    run's command; none when none is): the page shows them, so its command must say them."""
    out: list[tuple[str, str, bool]] = []
    for flag, ids in (
        ("--pin", [c.index for c in selection.candidates if c.pinned]),
        ("--exclude", [c.index for c in selection.candidates if c.excluded]),
    ):
        if ids:
            out.append((flag, ",".join(map(str, sorted(ids))), False))
    return out


def shown_path(path: str, full: bool = False) -> str:
    """A path as a page to share shows it: as given when it is relative and stays
    below the current folder, else its name (a home folder, a user name and a private
    folder stay off the page); `full` keeps it as given."""
    p = Path(path)
    if full or not (p.is_absolute() or path.startswith("~") or ".." in p.parts):
        return path
    # Absolute and through `..` even when below the current folder (walk 21, F3): as
    # the folder sees it, a session of ~/.claude/projects/ names its user in its path.
    name = p.name or path
    # a name that starts with '-' (Claude Code's project folders: -home-me-proj) would
    # be read as an option: the command shows it as a path (walk 28, F7)
    return f"./{name}" if name.startswith("-") else name


def _command(
    path: str,
    params: Sequence[tuple[str, str, bool]],
    extra: Sequence[str],
    full: bool,
    output: str | None = None,
    paths: Collection[str] = (),
) -> str:
    """The command that makes this run (a run the workbench exported): the knobs set,
    `extra` (each of `paths` in it shown by `shown_path`), and `output`, the page
    written, shown as `command_as_run` shows ``-o``."""
    import shlex

    from chunkscope.engine.config.settings import toml_value

    argv = ["chunkscope", "report", shown_path(path, full)]
    for flag, value, default in params:
        # null: no cap, as the other unit's cap was given (with its own flag)
        if not default and flag.startswith("--") and value != toml_value(None):
            argv += [flag] if value == "true" else [flag, value]
    out = shown_path(output, full) if output else "report.html"
    private = set(paths)
    shown = [shown_path(a, full) if a in private else a for a in extra]
    return shlex.join([*argv, *shown, "-o", out])


def run_flags(params: PipelineParams, sessions: Sequence[tuple[int, str]] = ()) -> list[str]:
    """The options of `chunkscope report` that read, embed and summarize the file as
    `params` do, beside the knobs and the tool calls (the command of a run the workbench
    exported; the CLI's page repeats its own command line): ``--strict``,
    ``--input-format``, ``--session`` of the session shown when the file holds several
    (`sessions`, newest first: the newest's too, so a conversation added to the file
    later does not change what the command reports), ``--tokenizer``, and the embedder
    and the summarizer when they are not the defaults."""
    from chunkscope.engine.pipeline import EmbedderSpec, SummarizerSpec
    from chunkscope.engine.tokens import DEFAULT_ENCODING

    out = ["--strict"] if params.strict else []
    if params.input_format is not None:
        out += ["--input-format", params.input_format]
    session = params.session
    if session is None and len(sessions) > 1:
        session = sessions[0][0]  # the newest, opened when none was asked for
    if session is not None:
        out += ["--session", str(session)]
    if params.tokenizer != DEFAULT_ENCODING:
        out += ["--tokenizer", params.tokenizer]
    embedder, summarizer = params.embedder, params.summarizer
    if embedder.name != EmbedderSpec().name:
        out += ["--embedder", embedder.name]
    if embedder.model:
        out += ["--model", embedder.model]
    if summarizer.name != SummarizerSpec().name:
        out += ["--summarizer", summarizer.name]
    if summarizer.model:
        out += ["--summary-model", summarizer.model]
    return out


def command_as_run(argv: Sequence[str], paths: Collection[str], full: bool = False) -> str:
    """``chunkscope ARGV`` exactly as run, each of `paths` (the input, -o, --gold, ...)
    shown by `shown_path`, whether it was its own word or attached to its option
    (``--output=PATH``, ``-oPATH``)."""
    import shlex

    private = set(paths)

    def shown(arg: str) -> str:
        if arg in private:
            return shown_path(arg, full)
        if arg.startswith("--") and "=" in arg:
            flag, _, value = arg.partition("=")
            if value in private:
                return f"{flag}={shown_path(value, full)}"
        elif arg.startswith("-") and len(arg) > 2 and arg[2:] in private:
            return arg[:2] + shown_path(arg[2:], full)
        return arg

    return shlex.join(["chunkscope", *(shown(a) for a in argv)])


def gather(
    pipe: Pipeline,
    source: Source,
    merged: MergeResult,
    selection: Selection,
    tuning: Tuning,
    *,
    gold: Sequence[int] | None = None,
    partial: bool = False,
    tolerance: int = 2,
    extra_args: Sequence[str] = (),
    weights: IntArray | None = None,
    queries: Sequence[Query] | None = None,
    search: SearchParams | None = None,
    command: str | None = None,
    full_path: bool = False,
    output: str | None = None,
    paths: Sequence[str] = (),
    command_note: str = "",
) -> Report:
    """The `Report` of a run: `pipe` ran the recap pipeline (`merged`, `selection`).
    `weights`: the file's `line_weights` when the caller has read them already;
    `queries`: questions the merged chunks answer (`engine.search`, with `search`);
    `command`: the command line as run (`command_as_run`), else one is made from the
    knobs, with `output` (the page's path, given either way) as its ``-o``;
    `full_path`: the file's full path instead of its name; `paths`: the other paths
    the command shows (-o, --gold), each by `shown_path`, and to say on the page when
    one of them is shown without its folders; `command_note`: what the command cannot
    say of the run, shown beside it."""
    from chunkscope.engine.evaluate.measure import (
        chunk_starts,
        first_item_line,
        line_weights,
        match_boundaries,
        met_gold,
        score,
    )
    from chunkscope.engine.segment.merge import char_counts

    compacted = pipe.compacted()
    offsets = _offsets(char_counts(compacted).tolist())
    bounds = merged.bounds.tolist()
    tokens = pipe.token_counts(merged.chunks)
    candidates = {c.index: c for c in selection.candidates}
    over = merged.exceeds_limit
    rows: list[ChunkRow] = []
    for i, c in enumerate(merged.chunks):
        cut = merged.cut_after(i)
        head, tail = _preview(c.text)
        cand = candidates.get(i)
        rows.append(
            ChunkRow(
                index=i,
                time_range=c.time_range if source.has_clock else "",
                turns=len(c.turns),
                chars=c.chars,
                tokens=tokens[i],
                lines=c.lines,
                parts=(bounds[i], bounds[i + 1]),
                head=head,
                tail=tail,
                summary=_clean(cand.text) if cand is not None else "",
                cut_reason=None if cut is None else str(cut.reason),
                cut_detail="" if cut is None else str(cut),
                recap=cand.reason if cand is not None else "",
                exceeds=over[i],
                part_word=source.part_word,
            )
        )

    # The curves: neighbour similarity (seed), block similarity and depth score (topic).
    n = len(compacted)
    gaps_x = offsets[1:n].astype(float) if n >= 2 else np.zeros(0)
    curves: list[Curve] = []
    mode = tuning.merge.mode
    if n >= 2 and mode == "topic":
        from chunkscope.engine.segment.segmenter import gap_scores

        # The pipeline's topic knobs, as the merge used them: ``--topics N``/``--chunks N`` set
        # the depth after the settings were read (walk 50, F5: the line said depth 7).
        gs = gap_scores(pipe.embeddings(), compacted, pipe.params.topic, pipe.topic_frame())
        x, y = _bucket(gaps_x, gs.similarity, low=True)
        curves.append(Curve("block similarity", x, y, None, ""))
        x, y = _bucket(gaps_x, gs.score, low=False)
        threshold = float(gs.threshold) if np.isfinite(gs.threshold) else None
        curves.append(Curve("depth + structure", x, y, threshold, "topic depth"))
    elif n >= 2:
        sims = np.asarray(pipe.similarities(), dtype=float)
        x, y = _bucket(gaps_x, sims, low=True)
        first = merged.passes[0].threshold if merged.passes else None
        if first is not None and not np.isfinite(first):
            first = None
        curves.append(Curve("similarity to the next chunk", x, y, first, "pass 1 threshold"))

    # Gold marks topic starts: a merge with topics is scored by its topics' starts.
    scored = merged.topic_chunks
    starts = chunk_starts(scored)
    matched: dict[int, int] = {}
    scores = None
    if gold is not None:
        if weights is None:
            weights = line_weights(pipe.path)
        gold = met_gold(gold, first_item_line(scored), partial=partial)
        scores = score(  # partial gold: over the stretch it covers, as eval scores it
            starts, gold, weights, chunks=len(scored), tolerance=tolerance, partial=partial
        )
        matched = match_boundaries(starts, gold, tolerance)
    cuts: list[tuple[float, str, str]] = []
    hits: set[float] = set()
    for j, cut in enumerate(merged.cuts):
        at = float(offsets[bounds[j + 1]])
        cuts.append((at, str(cut.reason), f"cut after chunk {j}: {cut}"))
        first_line = merged.chunks[j + 1].lines
        if first_line is not None and first_line[0] in matched:
            hits.add(at)
    marks: list[tuple[float, bool, int]] = []
    if gold is not None:
        firsts = [c.lines[0] if c.lines else 0 for c in compacted]
        found = set(matched.values())
        for line in sorted(set(gold)):
            if line <= 1:
                continue
            k = min(bisect.bisect_left(firsts, line), n)
            marks.append((float(offsets[k]), line in found, line))

    topics = _topics(merged, rows)
    in_topics = f" in {plural(len(topics), 'topic')}" if topics is not None else ""
    counter = pipe.counter
    p = pipe.params
    turns = f"{len(source.turns):,}"
    calls: list[tuple[str, str]] = []
    if source.kind == "jsonl":  # a log: what became of its tool calls
        from chunkscope.engine.recap.collapse import COLLAPSE_FLAG, NO_COLLAPSE_FLAG
        from chunkscope.tui.widgets.header_line import turns_after_collapse

        if p.collapses(source.kind):
            kept = len(pipe.turns())
            if kept != len(source.turns):
                turns += f" · {turns_after_collapse(kept, len(source.turns))}"
            calls = [
                (
                    "tool calls",
                    f"collapsed, as the recap reads them ({NO_COLLAPSE_FLAG} keeps them)",
                )
            ]
        else:
            calls = [("tool calls", f"kept as turns ({COLLAPSE_FLAG} collapses them)")]
    facts = [
        ("file", source.path if full_path else Path(source.path).name),
        ("format", source.kind_label),
        (f"{source.turn_word}s", turns),
        *calls,
        ("tokenizer", f"{counter.name} ({counter.accuracy})"),
        ("embedder", p.embedder.label()),
        ("summarizer", p.summarizer.label()),
        ("strategy", p.strategy),
        ("merge", mode),
        ("chunks", f"{n:,} compacted → {len(merged.chunks):,} merged{in_topics}"),
    ]
    if source.skipped:
        facts.append(("skipped lines", f"{len(source.skipped):,}"))
    knobs_set = _params(_with_count_knob(tuning, pipe))
    shared = {flag for flag, _, _ in knobs_set}  # (--max-tokens: a strategy's and the cap's)
    strategy = [row for row in _strategy_params(p) if row[0] not in shared]
    params = strategy + knobs_set + _marked(selection)
    report_rows = rows
    if topics is not None:
        owner = {i: t.index for t in topics for i in range(*t.chunks)}
        report_rows = [_with_topic(r, owner.get(r.index)) for r in rows]
    retrieval = None
    if queries:
        from chunkscope.engine.search import retrieval_score

        retrieval = retrieval_score(pipe, queries, search)
    command = command or _command(source.path, params, extra_args, full_path, output, paths)
    return Report(
        title=Path(source.path).name,
        facts=facts,
        params=params + _option_rows(extra_args, params, full_path, paths),
        command=command,
        chunks=report_rows,
        topics=topics,
        plot=Plot(int(offsets[-1]), curves, cuts, marks, hits, merged.params.mode == "topic"),
        selection=selection.as_dict(),
        recap_text=_clean(selection.text),
        budget=selection.budget,
        used_tokens=selection.used_tokens,
        scores=scores,
        tolerance=tolerance,
        notes=[
            _clean(w)
            for w in (
                *source.warning_lines(None if full_path else Path(source.path).name),
                *pipe.warnings,
            )
        ],
        retrieval=retrieval,
        folders_dropped=not full_path
        and any(shown_path(p) != p for p in (source.path, output, *paths) if p),
        output_dropped=not full_path and output is not None and shown_path(output) != output,
        command_note=command_note,
    )


def _with_topic(row: ChunkRow, topic: int | None) -> ChunkRow:
    from dataclasses import replace

    return replace(row, topic=topic)


# --------------------------------------------------------------------------- rendering


def esc(value: object) -> str:
    """Text from anywhere, as HTML text or attribute value: escaped, no control characters."""
    return html.escape(_clean(str(value)), quote=True)


#: A word at least this long in a table's text may break inside (`breakable`).
LONG_WORD = 24
_LONG_WORD = re.compile(rf"\S{{{LONG_WORD},}}")
#: Where such a word may break: after a path's, a name's or a rule's separators.
_WORD_JOINTS = re.compile(r"(?<=[/\\_.=,:;-])")


def breakable(value: object) -> str:
    """`esc(value)` where a word of `LONG_WORD` characters or more (a path, a rule of
    ``===``) may break, after its separators and else every `LONG_WORD` characters: a
    table's text column then narrows to its box (walk 40, F1: one path in an abstract
    made the chunk table 1,079 px wide in a 968-px box), while its other words stay
    whole, as `overflow-wrap: anywhere` would not keep them."""
    text = _clean(str(value))
    out: list[str] = []
    last = 0
    for m in _LONG_WORD.finditer(text):
        out.append(html.escape(text[last : m.start()], quote=True))
        pieces = [
            part[i : i + LONG_WORD]
            for part in _WORD_JOINTS.split(m.group())
            for i in range(0, len(part), LONG_WORD)
        ]
        out.append("<wbr>".join(html.escape(p, quote=True) for p in pieces if p))
        last = m.end()
    out.append(html.escape(text[last:], quote=True))
    return "".join(out)


def _num(x: float) -> str:
    if abs(x) >= 1_000_000:
        return f"{x / 1_000_000:.1f}M"
    if abs(x) >= 1000:
        return f"{x / 1000:.0f}k" if abs(x) >= 10_000 else f"{x / 1000:.1f}k"
    return f"{x:g}"


def _cut_ticks(plot: Plot, px: Callable[[float], float], left: int, bottom: int) -> str:
    """Many cuts as one tick per pixel column in a row of their own under the curves
    (the column's most telling reason), so the curves stay readable."""
    columns: dict[int, list[tuple[str, str]]] = {}
    for at, reason, tip in plot.cuts:
        columns.setdefault(round(px(at)), []).append((reason, tip))
    y = bottom + 8
    out = [f'<text x="{left - 4}" y="{y + 9}" class="axis" text-anchor="end">cuts</text>']
    for x, here in sorted(columns.items()):
        reason = max((r for r, _ in here), key=lambda r: CUT_PRIORITY.get(r, 0))
        tip = here[0][1] if len(here) == 1 else f"{len(here)} cuts here"
        out.append(
            f'<line x1="{x}" x2="{x}" y1="{y}" y2="{y + 9}" stroke="'
            f'{REASON_COLOURS.get(reason, "#4a5568")}" class="cut tick"><title>{esc(tip)}'
            "</title></line>"
        )
    return "".join(out)


def render_svg(plot: Plot, width: int = 960) -> str:
    """The plot: one panel per curve, the cuts across every panel, gold marks below."""
    panel_h, gap, left, right, top = 110, 26, 46, 10, 8
    dense = len(plot.cuts) > DENSE_CUTS
    marks_h = (22 if plot.gold else 0) + (14 if dense else 0)
    panels = max(1, len(plot.curves))
    plot_w = width - left - right
    height = top + panels * (panel_h + gap) + marks_h + 18
    length = max(plot.length, 1)

    def px(x: float) -> float:
        return round(left + plot_w * x / length, 1)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'role="img" aria-label="similarity along the file, with the cuts" class="plot">'
    ]
    for k, curve in enumerate(plot.curves or [Curve("no neighbours to compare", [], [], None, "")]):
        y0 = top + k * (panel_h + gap)
        values = [*curve.y, *([curve.threshold] if curve.threshold is not None else [])]
        lo, hi = (min(values), max(values)) if values else (0.0, 1.0)
        if hi - lo < 1e-9:
            lo, hi = lo - 0.5, hi + 0.5
        pad = (hi - lo) * 0.05
        lo, hi = lo - pad, hi + pad

        def py(v: float, y0: int = y0, lo: float = lo, hi: float = hi) -> float:
            return round(y0 + panel_h - panel_h * (v - lo) / (hi - lo), 1)

        out.append(
            f'<rect x="{left}" y="{y0}" width="{plot_w}" height="{panel_h}" class="panel"/>'
            f'<text x="{left + 4}" y="{y0 + 12}" class="label">{esc(curve.label)}</text>'
            f'<text x="{left - 4}" y="{y0 + 10}" class="axis" text-anchor="end">'
            f"{hi:.2f}</text>"
            f'<text x="{left - 4}" y="{y0 + panel_h}" class="axis" text-anchor="end">'
            f"{lo:.2f}</text>"
        )
        if curve.x:
            points = " ".join(f"{px(x)},{py(y)}" for x, y in zip(curve.x, curve.y, strict=True))
            out.append(f'<polyline points="{points}" class="curve c{k}"/>')
        if curve.threshold is not None:
            ty = py(curve.threshold)
            out.append(
                f'<line x1="{left}" x2="{left + plot_w}" y1="{ty}" y2="{ty}" class="threshold">'
                f"<title>{esc(curve.threshold_label)} {curve.threshold:.4f}</title></line>"
            )
    bottom = top + panels * (panel_h + gap) - gap
    if dense:
        out.append(_cut_ticks(plot, px, left, bottom))
    else:
        for at, reason, tip in plot.cuts:
            colour = REASON_COLOURS.get(reason, "#4a5568")
            x = px(at)
            dash = ' stroke-dasharray="4 3"' if plot.gold and at not in plot.hits else ""
            out.append(
                f'<line x1="{x}" x2="{x}" y1="{top}" y2="{bottom}" stroke="{colour}" '
                f'class="cut"{dash}><title>{esc(tip)}</title></line>'
            )
    if plot.gold:
        my = bottom + 14 + (14 if dense else 0)
        out.append(f'<text x="{left - 4}" y="{my + 4}" class="axis" text-anchor="end">gold</text>')
        for at, found, line in plot.gold:
            x = px(at)
            colour = HIT if found else MISS
            word = "found" if found else "missed"
            out.append(
                f'<path d="M{x} {my - 6} L{x + 5} {my} L{x} {my + 6} L{x - 5} {my} Z" '
                f'fill="{colour}" class="mark"><title>gold topic start at line {line}: '
                f"{word}</title></path>"
            )
    ty = height - 4
    for frac in (0, 0.25, 0.5, 0.75, 1):
        x = px(length * frac)
        anchor = "start" if frac == 0 else "end" if frac == 1 else "middle"
        out.append(
            f'<text x="{x}" y="{ty}" class="axis" text-anchor="{anchor}">'
            f"{_num(length * frac)}{' chars' if frac == 1 else ''}</text>"
        )
    out.append("</svg>")
    return "".join(out)


CSS = """
:root { --fg: #1a202c; --muted: #5a6578; --bg: #fff; --card: #f7f8fa; --line: #d9dee7;
  --kept: #2f855a; --over: #c53030; --accent: #2b6cb0; color-scheme: light dark; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e2e8f0; --muted: #a0aec0; --bg: #14181f; --card: #1d232c; --line: #33404f;
    --kept: #68d391; --over: #fc8181; --accent: #63b3ed; }
}
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 64rem; padding: 1rem; color: var(--fg); background: var(--bg);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
h1 { font-size: 1.4rem; margin: .2rem 0 .6rem; overflow-wrap: anywhere; }
h2 { font-size: 1.15rem; margin: 1.6rem 0 .5rem; border-bottom: 1px solid var(--line); }
h3 { font-size: 1rem; margin: 1rem 0 .3rem; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .1rem .8rem; margin: 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
article.chunk { overflow-wrap: anywhere; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: .85em; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--card);
  padding: .6rem; border-radius: 4px; margin: .3rem 0; }
.muted { color: var(--muted); }
.table { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: .9rem; }
th, td { text-align: left; padding: .25rem .5rem; border-bottom: 1px solid var(--line);
  vertical-align: top; overflow-wrap: break-word; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
th, td.w, .w { white-space: nowrap; overflow-wrap: normal; }
tr.default td { color: var(--muted); }
.chunk { background: var(--card); border-left: 4px solid var(--line); border-radius: 4px;
  padding: .5rem .75rem; margin: .5rem 0; break-inside: avoid; }
.chunk.kept, .chunk.pinned { border-left-color: var(--kept); }
.chunk h3 { margin: 0; font-size: .95rem; }
.chunk .summary { margin: .3rem 0; }
.chunk .parts { font-weight: normal; }
.badge { display: inline-block; font-size: .75rem; padding: 0 .4rem; border-radius: 3px;
  border: 1px solid currentColor; margin-right: .3rem; white-space: nowrap; }
.b-kept, .b-pinned { color: var(--kept); }
.b-over, .b-excluded { color: var(--over); }
.cutline { font-size: .85rem; margin: .2rem 0 0; }
.swatch { display: inline-block; width: .8rem; height: .8rem; border-radius: 2px;
  vertical-align: -0.1rem; margin: 0 .25rem 0 .6rem; }
.legend .item { white-space: nowrap; }
p.run { overflow-wrap: anywhere; }
.topic { border-top: 2px solid var(--accent); margin-top: 1rem; }
svg.plot { width: 100%; height: auto; display: block; background: var(--bg); }
svg .panel { fill: none; stroke: var(--line); }
svg .label { font: 11px system-ui, sans-serif; fill: var(--muted); }
svg .axis { font: 10px system-ui, sans-serif; fill: var(--muted); }
svg .curve { fill: none; stroke-width: 1.2; stroke: #2c5282; }
svg .curve.c1 { stroke: #805ad5; }
svg .threshold { stroke: #718096; stroke-dasharray: 2 3; stroke-width: 1.5; }
svg .cut { stroke-width: 1.2; opacity: .75; }
table.scores { width: auto; }
.scores td { font-variant-numeric: tabular-nums; }
.dots { display: inline-block; width: 1.2rem; border-top: 2px dotted #718096;
  vertical-align: .25rem; margin: 0 .25rem 0 .6rem; }
@media (prefers-color-scheme: dark) {
  svg .curve { stroke: #90cdf4; } svg .curve.c1 { stroke: #d6bcfa; }
}
@media (max-width: 600px) {
  body { padding: .6rem; font-size: 14px; }
  th, td { padding: .2rem .3rem; }
  .hide-narrow { display: none; }
}
@media print {
  :root { --fg: #000; --muted: #444; --bg: #fff; --card: #fff; --line: #bbb; }
  body { max-width: none; font-size: 11pt; padding: 0; }
  .chunk { border: 1px solid var(--line); border-left-width: 4px; }
  details > summary { list-style: none; }
  h2 { break-after: avoid; }
  svg.plot { break-inside: avoid; }
}
"""


#: A flag in a fact's text (``--no-collapse``): kept on one line, never broken at a dash.
_FLAG = re.compile(r"(?<![\w-])--[a-z][\w-]*")


def _facts(items: Sequence[tuple[str, str]]) -> str:
    def kept_whole(text: str) -> str:
        return _FLAG.sub(lambda m: f'<span class="w">{m.group(0)}</span>', esc(text))

    body = "".join(f"<dt>{esc(k)}</dt><dd>{kept_whole(v)}</dd>" for k, v in items)
    return f'<dl class="facts">{body}</dl>'


def _legend_item(mark: str, label: str) -> str:
    """One item of the plot's legend: its swatch or marker, label and count on one line
    (the legend wraps between items, never inside one)."""
    return f'<span class="item">{mark}{esc(label)}</span>'


def _swatch(colour: str) -> str:
    return f'<span class="swatch" style="background:{colour}"></span>'


def _legend(plot: Plot) -> str:
    reasons = Counter(reason for _, reason, _ in plot.cuts)
    parts = [
        _legend_item(
            _swatch(REASON_COLOURS.get(r, "#4a5568")), f"{cut_name(r, plot.topic)} cut × {n}"
        )
        for r, n in sorted(reasons.items())
    ]
    if plot.gold:
        found = sum(1 for _, f, _ in plot.gold if f)
        parts.append(_legend_item(_swatch(HIT), f"gold found × {found}"))
        # the explanation wraps as text after its item: wider than a phone with it
        parts.append(
            _legend_item(_swatch(MISS), f"gold missed × {len(plot.gold) - found}")
            + " (a dashed cut matched no gold start)"
        )
    if not plot.cuts:
        parts.append("no cuts: the file is one merged chunk")
    for curve in plot.curves:
        if curve.threshold is not None:
            parts.append(
                _legend_item(
                    '<span class="dots"></span>',
                    f"{curve.threshold_label} {curve.threshold:.4f}",
                )
            )
    return f'<p class="muted legend">{" ".join(parts)}</p>'


def _retrieval(report: Report) -> str:
    """The questions the merged chunks answer: scores, then a row per question."""
    r = report.retrieval
    if r is None:
        return ""
    from chunkscope.engine.search import RECALL_K

    p = r.params
    rows = [
        ("hit rate", f"{r.hit_rate:.3f}", f"the answer within {p.budget} tokens ({p.ranker})"),
        ("MRR", f"{r.mrr:.3f}", "1 / the rank of the first chunk that answers, averaged"),
        (f"recall@{RECALL_K}", f"{r.recall_at_k:.3f}", f"an answer among the first {RECALL_K}"),
        ("tokens used", f"{r.mean_used_tokens:.0f}", "mean context size"),
        ("queries", str(r.queries), f"{r.unanswerable} that no chunk answers"),
    ]
    body = "".join(
        f'<tr><th>{esc(a)}</th><td class="n">{esc(b)}</td><td class="muted">{esc(c)}</td></tr>'
        for a, b, c in rows
    )
    per = "".join(
        f'<tr><td style="color:{HIT if o.hit else MISS}">{"hit" if o.hit else "miss"}</td>'
        f'<td class="n">{esc(o.rank) if o.rank else "–"}</td>'
        f'<td class="n">{esc(", ".join(f"#{i}" for i in o.right[:3]))}</td>'
        f"<td>{breakable(o.query.query)}</td></tr>"
        for o in r.outcomes
    )
    head = '<h2 id="retrieval">Questions answered</h2>'
    table = (
        '<div class="table"><table><tr><th></th><th>rank</th><th>chunk</th><th>question</th>'
        f"</tr>{per}</table></div>"
    )
    return f'{head}<table class="scores">{body}</table>{table}'


def _scores(report: Report) -> str:
    s = report.scores
    if s is None:
        return ""
    rows = [
        ("Pk", score_text(s.pk), f"k = {s.k:,} chars; 0 is perfect"),
        ("WindowDiff", score_text(s.windowdiff), "0 is perfect"),
        ("precision", score_text(s.precision), f"boundaries within {report.tolerance} lines"),
        ("recall", score_text(s.recall), ""),
        ("F1", score_text(s.f1), ""),
        ("segments", f"{s.chunks} found", f"{s.gold_segments} gold"),
    ]
    if s.stretch is not None:
        where = f"lines {s.stretch[0]}-{s.stretch[1]}"
        rows.append(("partial gold", where, "scored only there: the stretch the starts cover"))
    body = "".join(
        f'<tr><th>{esc(a)}</th><td class="n">{esc(b)}</td><td class="muted">{esc(c)}</td></tr>'
        for a, b, c in rows
    )
    head = '<h2 id="score">Score against the gold topic starts</h2>'
    return f'{head}<table class="scores">{body}</table>'


def _range(first: int, last: int) -> str:
    """``33`` for one, ``32–33`` for several."""
    return str(first) if first == last else f"{first}–{last}"


_RECAP_BADGES = {
    "kept": "in the recap",
    "pinned": "pinned",
    "excluded": "excluded",
    "said already": "said already in the recap",
    "no summary": "no summary",  # why: in place of the summary (a badge stays one line)
}


def _chunk(row: ChunkRow) -> str:
    lines = f" · lines {_range(row.lines[0], row.lines[1])}" if row.lines else ""
    when = f" · {esc(row.time_range)}" if row.time_range.strip() else ""
    turns = plural(row.turns, row.part_word)
    badge = ""
    if row.recap:
        cls = "b-over" if row.recap == "over budget" else f"b-{row.recap.replace(' ', '-')}"
        word = _RECAP_BADGES.get(row.recap, "did not fit the budget")
        badge = f'<span class="badge {cls}">{esc(word)}</span>'
    if row.exceeds:
        badge += '<span class="badge b-over">one unit over the size cap</span>'
    cut = ""
    if row.cut_reason is not None:
        colour = REASON_COLOURS.get(row.cut_reason, "#4a5568")
        cut = f'<p class="cutline">{_swatch(colour)}cut after: {esc(row.cut_detail)}</p>'
    text = f"<pre>{esc(row.head)}</pre>"
    if row.tail:
        text = f'<pre>{esc(row.head)}</pre><p class="muted">…</p><pre>{esc(row.tail)}</pre>'
    state = "kept" if row.recap in ("kept", "pinned") else "other"
    summary = f'<p class="summary">{esc(row.summary)}</p>'
    if row.recap == "no summary" and not row.summary.strip():
        summary = f'<p class="summary muted">{esc(NO_SUMMARY_WHY.capitalize())}.</p>'
    parts = _range(row.parts[0], row.parts[1] - 1)
    return (
        f'<article class="chunk {state}" id="chunk-{row.index}">'
        f"<h3>{badge}Chunk {row.index}{when} · {turns} · {row.chars:,} chars · "
        f"{row.tokens:,} tokens{lines} "
        f'<span class="muted parts hide-narrow">(compacted chunks {parts})'
        f"</span></h3>"
        f"{summary}<details><summary>text</summary>{text}</details>{cut}</article>"
    )


def _chunks(report: Report) -> Iterator[str]:
    if report.topics is None:
        yield f'<h2 id="chunks">Merged chunks ({len(report.chunks)})</h2>'
        for row in report.chunks:
            yield _chunk(row)
        return
    yield (
        f'<h2 id="chunks">Topics ({len(report.topics)}) and merged chunks '
        f"({len(report.chunks)})</h2>"
    )
    for t in report.topics:
        lines = f" · lines {t.lines[0]}–{t.lines[1]}" if t.lines else ""
        reason = ""
        if t.reason and t.reason != "start":
            reason = f" · starts by {esc(t.reason.replace('_', ' '))}"
        k = t.chunks[1] - t.chunks[0]
        yield (
            f'<section class="topic" id="topic-{t.index}"><h3>Topic {t.index}{lines} · '
            f"{k} merged chunk{'s' if k != 1 else ''}{reason}</h3>"
        )
        for row in report.chunks[t.chunks[0] : t.chunks[1]]:
            yield _chunk(row)
        yield "</section>"


#: How a table writes a column of numbers with fractions (a score: 0.9123, 1 as 1.0000).
FRACTION_FORMAT = ".4f"


#: A text cell this short is kept on one line (a reason, a kind, a time): the column of
#: long text beside it wraps instead.
SHORT_CELL = 20
#: What parts the two ends of a range in a text cell (a time range): a line may break there.
RANGE_SEPARATOR = " - "


def _cell(value: Any, fractions: bool = False) -> str:
    """One value of a table, as a reader reads it: numbers right-aligned, ``true`` /
    ``false`` / ``null`` as JSON writes them, a pair of numbers as a range (``12–30``),
    a list of texts one a line (wrapped), anything else as compact JSON. `fractions`:
    the column holds fractions, each written the same way (`FRACTION_FORMAT`)."""
    if isinstance(value, bool) or value is None:
        return f"<td>{esc(json.dumps(value))}</td>"
    if fractions and isinstance(value, int | float):
        return f'<td class="n">{value:{FRACTION_FORMAT}}</td>'
    if isinstance(value, float):
        return f'<td class="n">{value:.4g}</td>'
    if isinstance(value, int):
        return f'<td class="n">{value:,}</td>'
    if isinstance(value, str):
        parts = value.split(RANGE_SEPARATOR)
        if all(0 < len(p) <= SHORT_CELL and not any(c.isspace() for c in p) for p in parts):
            # a word or a range of two (`over budget` aside): never broken inside one,
            # which a wide column of text beside it would do (`ind|ex`, `09:1|3:23`)
            return (
                "<td>"
                + RANGE_SEPARATOR.join(f'<span class="w">{esc(p)}</span>' for p in parts)
                + "</td>"
            )
        if len(value) <= SHORT_CELL:
            return f'<td class="w">{esc(value)}</td>'
        return f"<td>{breakable(value)}</td>"
    if isinstance(value, list | tuple):
        if len(value) == 2 and all(type(v) is int for v in value):
            return f'<td class="n">{value[0]:,}–{value[1]:,}</td>'
        if all(isinstance(v, str) for v in value):
            return "<td>" + "".join(f"<div>{breakable(v)}</div>" for v in value) + "</td>"
    return f"<td><code>{esc(json.dumps(value, ensure_ascii=False))}</code></td>"


def _table(rows: Sequence[Mapping[str, Any]], skip: Sequence[str] = ()) -> str:
    keys: list[str] = []
    for r in rows:
        keys += [k for k in r if k not in keys and k not in skip]
    # a column with no text in any row says nothing (a document's time ranges)
    keys = [k for k in keys if any(r.get(k, "") != "" for r in rows)]
    head = "".join(f"<th>{esc(k.replace('_', ' '))}</th>" for k in keys)
    fractions = {k for k in keys if _fractions([r.get(k) for r in rows])}
    body = []
    for r in rows:
        cls = ""
        if "selected" in r:
            cls = ' class="kept"' if r.get("selected") else ' class="over"'
        cells = "".join(_cell(r.get(k), k in fractions) for k in keys)
        body.append(f"<tr{cls}>{cells}</tr>")
    return f'<div class="table"><table><tr>{head}</tr>{"".join(body)}</table></div>'


def _fractions(values: Sequence[Any]) -> bool:
    """A column of numbers with a fraction among them (scores): written alike."""
    numbers = [v for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
    return (
        bool(numbers)
        and len(numbers) == sum(v is not None for v in values)
        and any(isinstance(v, float) and not v.is_integer() for v in numbers)
        and all(abs(v) < 1e6 for v in numbers)
    )


def _sections(title: str, rows: Sequence[Mapping[str, Any]]) -> str:
    """The recap's sections: each one's heading, its text (one line of the recap a
    line: not line numbers, which ``lines`` means everywhere else on the page) and its
    tokens; where it was read from, said once when every section says the same."""
    sources = {str(r.get("source", "")) for r in rows} - {""}
    shown = [
        {
            "section": r.get("title", r.get("name", "")),
            "text": list(r.get("lines", [])),
            "tokens": r.get("tokens", 0),
            **({"read from": r.get("source")} if len(sources) > 1 else {}),
        }
        for r in rows
    ]
    said = ""
    if len(sources) == 1:
        where = "the log's records" if sources == {"records"} else next(iter(sources))
        said = f'<p class="muted">Each section is read from {esc(where)}.</p>'
    return title + said + _table(shown)


def _generic(name: str, value: Any) -> str:
    """One part of the selection's JSON document, whatever it is."""
    title = f"<h3>{esc(name.replace('_', ' '))}</h3>"
    if isinstance(value, str):
        return f"{title}<pre>{esc(value)}</pre>"
    if isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
        # the sections: a row's ``text`` repeats its ``lines`` (``## Title`` and lines)
        if all("lines" in v and "text" in v for v in value):
            return _sections(title, value)
        return title + _table(value)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        items = "".join(f"<li>{esc(v)}</li>" for v in value)
        return f"{title}<ul>{items}</ul>" if value else f'{title}<p class="muted">none</p>'
    if isinstance(value, Mapping):
        return title + _facts([(str(k), _plain(v)) for k, v in value.items()])
    return f"{title}<pre>{esc(json.dumps(value, ensure_ascii=False, indent=2))}</pre>"


def _plain(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _recap(report: Report) -> Iterator[str]:
    doc = report.selection
    cands = [c for c in doc.get("candidates", []) if isinstance(c, Mapping)]
    kept = [c for c in cands if c.get("selected")]
    left = [c for c in cands if not c.get("selected")]
    yield (
        f'<h2 id="recap">Recap</h2><p>{len(kept)} of {len(cands)} summaries fit the budget: '
        f"<b>{report.used_tokens:,}</b> of {report.budget:,} tokens.</p>"
    )
    if doc.get("newest_over_budget"):
        yield '<p class="b-over">The newest summary alone is over the budget; it is included.</p>'
    yield f'<pre class="recap-text">{esc(report.recap_text) or "(empty)"}</pre>'
    yield "<h3>What fit the budget</h3>"
    yield _table(kept, skip=("summary", "selected")) if kept else '<p class="muted">nothing</p>'
    yield "<h3>What did not</h3>"
    yield (
        _table(left, skip=("summary", "selected"))
        if left
        else '<p class="muted">everything fit</p>'
    )
    shown = {"candidates", "recap", "budget", "used_tokens", "newest_over_budget"}
    scalars = [(k, v) for k, v in doc.items() if k not in shown and not isinstance(v, list | dict)]
    if scalars:
        yield _facts([(k.replace("_", " "), _plain(v)) for k, v in scalars])
    for k, v in doc.items():
        if k not in shown and isinstance(v, list | dict):
            yield _generic(k, v)


def _params_table(report: Report) -> str:
    rows = "".join(
        f'<tr class="{"default" if d else "set"}"><td><code>{esc(f)}</code></td>'
        f"<td>{esc(v)}</td><td>{'' if d else 'set'}</td></tr>"
        for f, v, d in report.params
    )
    return (
        '<h2 id="params">Parameters</h2>'
        f'<div class="table"><table><tr><th>flag</th><th>value</th><th></th></tr>{rows}</table>'
        f'</div><p class="run">The same run: <code>{esc(report.command)}</code>'
        f"{' ' + esc(_folders_note(report)) if report.folders_dropped else ''}"
        f"{' ' + esc(report.command_note) if report.command_note else ''}</p>"
    )


def _folders_note(report: Report) -> str:
    return OUTPUT_DROPPED_NOTE if report.output_dropped else FOLDERS_DROPPED_NOTE


def render_html(report: Report) -> Iterator[str]:
    """The page, in pieces (written as they come by `engine.fileio.atomic_write_text`)."""
    yield (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'\">"
        f"<title>chunkscope report · {esc(report.title)}</title><style>{CSS}</style></head>"
        f'<body><header><p class="muted">chunkscope report</p><h1>{esc(report.title)}</h1>'
    )
    yield _facts(report.facts)
    for note in report.notes:
        yield f'<p class="b-over">{esc(note)}</p>'
    yield "</header><main>"
    yield _scores(report)
    yield _retrieval(report)
    yield '<h2 id="plot">Along the file</h2>'
    yield (
        '<p class="muted">Horizontal: characters into the file. Each vertical line is a cut '
        "between merged chunks (a tick under the curves when there are many), coloured by "
        "its reason; hover for its numbers.</p>"
    )
    yield render_svg(report.plot)
    yield _legend(report.plot)
    yield from _chunks(report)
    yield from _recap(report)
    yield _params_table(report)
    version = f'<p class="muted">chunkscope {esc(__version__)}</p>'
    yield f"</main><footer>{version}</footer></body></html>\n"
