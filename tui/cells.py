"""Log text as every terminal draws it at the width the layout gave it.

Rich measures an emoji sequence as one wide character (``⚠️``, ``👍🏽``, a family
joined with U+200D: two cells each); a terminal that does not join the sequence draws
its parts (one cell for ``⚠``, four for ``👍🏽``, six for the family), and every cell
after it on the line moves: a card's right border breaks. Without the joiners, the
presentation selectors and the skin-tone modifiers, each character is measured alike
by Rich and by the terminal, and the emoji still shows.
"""

from __future__ import annotations

import re

from chunkscope.engine.textutil import strip_control

#: What a terminal may or may not join into one glyph: variation selectors (text /
#: emoji presentation), the zero-width joiner, skin-tone modifiers and tag characters.
_JOINERS = re.compile("[\ufe0e\ufe0f\u200d\U0001f3fb-\U0001f3ff\U000e0020-\U000e007f]")


def terminal_text(text: str) -> str:
    """`text` without control sequences and without the parts of emoji sequences that
    terminals measure differently (see the module docstring)."""
    text = strip_control(text)
    return _JOINERS.sub("", text) if not text.isascii() else text


def one_line_name(name: str) -> str:
    """A file's name or path as every view and message shows it (the picker's rows and
    the name under its list, the header, the commands' first lines): on one line, each
    line break or tab one space (its spaces kept, so a path read off it is the path),
    and without what a terminal would draw otherwise (`terminal_text`: a name's escape
    sequences are data, never drawn). A name is said one way everywhere: a line break in
    it cut the header after the name (its format and turns were gone) and the name under
    the picker's list (walk 38, F2)."""
    return " ".join(terminal_text(name).replace("\t", " ").splitlines())
