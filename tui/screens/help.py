"""The help screen: what is on the main screen, and every key."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen
from textual.widgets import Markdown

from chunkscope.engine.segment.merge import Cut, CutReason
from chunkscope.tui.screens.late_callbacks import LateCallbacks
from chunkscope.tui.widgets.chunk_list import cut_text
from chunkscope.tui.widgets.similarity_strip import glyph_key
from chunkscope.tui.widgets.steady_scroll import SteadyScroll

HELP = """\
# chunkscope

The pipeline of the open file, stage by stage: **before merge** (turns, raw or
compacted chunks) on the left, **merged** chunks on the right. A merged chunk's colour
band repeats on every part it holds; selecting either side selects both. The topic
segmenter finds topics, then splits each topic over the size cap (`max chars` or `max
tokens`, the same cap in both modes) at its best inner points; a card marked `over cap!`
is one paragraph larger than the cap, kept whole.

The **similarity strip** shows each pair of neighbours (for the seed loop, red: below
the threshold, green: above), where the merged chunks were cut and why (the topic
segmenter: {topic_glyphs}; the seed loop: {seed_glyphs}), the selection (`▲`) and the size of each
merged chunk against the cap. Every slider re-runs the merge at once from cached
embeddings. When comparing (`[` `]`), each column has a strip of its own run under it: a
merge mode's similarities and cuts, a strategy's cuts (`│`, named in the legend) with
"no scores" in place of the similarities it does not have.

**Topic marks** say where a topic really starts: `m` marks the item selected in the left
column (use the turn view, `v`), and marks are saved at once for this file (by its
content: a rename keeps them). With marks, the merge panel scores the topic starts of
every run (Pk, WindowDiff, boundary F1; hits, missed topics, spurious cuts), each cut
between topics says `✓ topic start` or `✗ no topic here`, `✗` flags a chunk hiding a
missed topic, `◆` a marked item, and the strip gets a row of marks (green: found, red:
missed). Marks are *partial* unless you say they are all the topics (`a`; the merge
panel shows which): partial marks claim every topic start from the first mark to the
last and nothing elsewhere, so only that stretch is scored and cuts outside it say
`· outside marks`. `chunkscope FILE --gold GOLD` opens with a gold file's starts; `M`
exports the marks in that format. Auto-tune (`A`) ranks settings by finding the marks
first (F1), then Pk.

The **Search panel** (`/`) asks the merged chunks a question: type it, `enter`. It lists
the chunks a context of the budget (1,000 tokens) receives, best first (rank, the
ranker's score, the merged chunk, its source lines, tokens, its first line), with the
tokens used and the ranker (`bm25`, `embed` or `fusion`: `tab` to the toggle, `←` `→`).
The answer's chunks are marked `⌕rank` in the merged column and by their rank on the
strip's cut row; moving in the results selects the chunk, `enter` goes to it. Every
slider asks the question again. `esc` closes the panel, from the merged column too
(where `enter` on a result goes; the question stays for the next `/`).
`chunkscope FILE --queries Q.json` (the format of `chunkscope search --queries`) adds
the hit rate and MRR of those questions to the merge panel's live score, and to each
column's title when comparing.

The **sweep** under the merge controls plots the chunk count (and Pk, with marks)
across the range of the focused slider's knob, the current value marked `▲`; it is
recomputed in the background after every run.

## Reading the numbers

A card's first line: `▸ 3 09:42:02–09:50:25 You·Think 6.9kc 1.7kt` is chunk 3, its
time range, the roles in it, 6,900 characters (`c`) and 1,700 tokens (`t`; `≈` while
the counts are estimates). A merged card's last line says why it ends there. The topic
segmenter: `{topic}` or `{structure}` (a topic starts; `structure` when a structural
point (a new request, a pause, a heading) tipped it: the cut's depth score against the depth
setting, and the neighbours' similarity); `{chunk_size}` (the topic goes on, cut into
chunks of about `chunk size` for search); `{topic_cap}` (the topic is over the size
cap, split at its best inner gap). The seed loop: `{threshold}`;
`{seed_cap}` (joined they would pass the size cap); `{min_similarity}`;
`{max_passes}`. The recap's
columns: `in` (✓ in the recap, ✗ left out, – excluded), `#` the merged chunk, `score`,
`tokens`, the summary's first line (📌 pinned). The merge panel: chunks, cuts and the
run's time; `units` are the chunks the merge starts from, `size` the minimum and maximum
segment size.

## Focus

`tab` walks the panels in this order, `shift+tab` back: the left column's view toggle
(`show`), the **before merge** list, the **merged** list, the merge controls (the mode,
then each slider of that mode, top to bottom; a strategy column's sliders come first),
the summary when it is longer than its panel (to scroll it), the recap **budget**, the
recap list, the recap preview. The focused control's row is tinted, a focused list
lights its panel's border. Below 130 columns the merge controls,
summary and recap are tabs: the tab bar comes after the merged list (`←` `→` switch
tabs), then the open tab's controls.

## Keys

| key | what it does |
|---|---|
| `tab` / `shift+tab` | next / previous panel |
| `↑` `↓` `pgup` `pgdn` `home` `end` | move in a list |
| `←` `→` (`shift`: big steps) | step the slider; on a toggle, that side's option |
| `↑` `↓` in the merge controls | the previous / next slider or toggle |
| `enter` | expand / collapse the selected chunk |
| `z` | zoom: the focused panel fills the screen (`z` or `esc` again restores it) |
| `/` | the Search panel: a question for the merged chunks (`esc` closes it) |
| `v` | left column: turns → raw → compacted |
| `m` | a topic starts at the left column's selected item (again: it does not) |
| `M` | export the topic marks as a gold file (`chunkscope eval --gold`) |
| `a` | the topic marks are all the topics ↔ some of them (partial, the default) |
| `n` | type a number of merged chunks: the threshold / topic depth moves to give it |
| `A` | auto-tune: the settings that best find the topic marks (F1, then Pk); apply or save |
| `s` | summarize all merged chunks |
| `p` / `x` | pin / exclude the selected chunk in the recap (not a strategy's card) |
| `b` | type the recap budget (tokens) |
| `w` | write the recap (asks before overwriting) |
| `c` | copy the selected chunk's text (comparing: the focused column's card) |
| `e` | export: the merged chunks (JSON or markdown), the recap, or the run as an HTML report |
| `ctrl+s` / `ctrl+l` | save / load a profile of parameters |
| `T` | tool calls: collapsed (as `chunkscope recap`, the default) ↔ raw |
| `[` / `]` | left / right column: default → each strategy → `merge:seed` → `merge:topic` |
| `t` | next theme |
| `esc` | cancel the work under way (a summary, a sweep, a load), else close Search; leave a zoom |
| `ctrl+o` | open a file |
| `ctrl+p` | command palette (chunk:, search:, recap:, export:, profile:, theme:) |
| `?` / `f1` | this help |
| `q` / `ctrl+q` | quit (`ctrl+q` also from a dialog) |

Log text is shown exactly as typed: markup and escape sequences in a log are data.
"""


def _cut_line(reason: CutReason, similarity: float, depth: float | None = None) -> str:
    """A merged card's cut line, drawn by the cards' own `cut_text`."""
    threshold = 7.0 if depth is not None else 0.12
    return cut_text(Cut(0, reason, similarity, threshold, depth))


def help_text() -> str:
    """The help, its glyphs and cut lines drawn by the code that draws them on the
    screen (the strip's legend, the cards' cut lines): the two cannot drift apart."""
    return HELP.format(
        topic_glyphs=glyph_key(topic=True),
        seed_glyphs=glyph_key(topic=False),
        topic=_cut_line("topic", 0.06, 9.1),
        structure=_cut_line("structure", 0.12, 8.19),
        chunk_size=_cut_line("chunk_size", 0.31, 2.5),
        topic_cap=_cut_line("size_cap", 0.28, 3.1),
        threshold=_cut_line("threshold", 0.11),
        seed_cap=_cut_line("size_cap", 0.30),
        min_similarity=_cut_line("min_similarity", 0.05),
        max_passes=_cut_line("max_passes", 0.40),
    )


#: The help's keys, on its lower border.
HELP_KEYS = "↑ ↓ pgup pgdn scroll · escape, q or ? closes"


class HelpScreen(LateCallbacks, ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark,f1", "close", "Close"),
    ]

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > SteadyScroll {
        width: 90; max-width: 95%; height: 80%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    """

    def compose(self) -> ComposeResult:
        with SteadyScroll() as scroll:
            # the workbench's footer is hidden below a dialog: it says its own keys
            scroll.border_subtitle = HELP_KEYS
            yield Markdown(help_text())

    def action_close(self) -> None:
        self.dismiss(None)
