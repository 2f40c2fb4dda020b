"""Walk 61: documentation sets (sources in the walk's sources.md: the Rust book,
hugoDocs, Vite, Astro, Flask). The summary findings: F3 (link reference definitions
and template tags kept as summaries) and F4 (admonition markers read as a sentence's
first words).

Each test fails on the code before its fix."""

from __future__ import annotations

import pytest

from chunkscope.engine.summarize.extractive import (
    ExtractiveSummarizer,
    is_fragment,
    split_sentences,
)


def _summary(text: str) -> str:
    return ExtractiveSummarizer().summarize("Doc: " + text.replace("\n", "\nDoc: ")).summary


@pytest.mark.parametrize(
    "markup",
    [
        "[data-types]: ch03-02-data-types.html#data-types\n[ch8]: ch08-02-strings.html",
        '[TOML]: https://toml.io/ "Tom\'s language"\n[`Date`]: /methods/page/date/',
        '{{% include "/_common/parsable-date-time-strings.md" %}}',
        "{{< code-toggle file=content/_index.md fm=true >}}\ntitle = 'Home'\n"
        '[sites.matrix]\nlanguages = ["en","fr"]\n{{< /code-toggle >}}',
        "{% include note.html content=page.note %}",
    ],
)
def test_f3_a_documents_markup_alone_has_no_summary(markup: str) -> None:
    """rust-ownership.md's link definitions, hugo's front-matter.md: a chunk of them was
    a recap paragraph (``[data-types]: ch03-02-data-types.html#data-types [ch8]: ...``)."""
    assert _summary(markup) == ""
    prose = "Hugo reads dates in several formats, which the list below gives in full."
    assert _summary(f"{prose}\n\n{markup}\n\nSet the timeZone in the configuration.") == (
        f"{prose} Set the timeZone in the configuration."
    )


def test_f3_a_link_in_a_sentence_stays_prose() -> None:
    """Not every bracket and colon: "[Note]: the cache is cold at startup" is a sentence
    (its target is no link), and a sentence citing a reference keeps it."""
    text = "[Note]: the cache is cold at startup and warms in a minute."
    assert [s.text for s in split_sentences("Doc: " + text)] == [text]


@pytest.mark.parametrize(
    ("marker", "closing"),
    [
        (":::tip Env Loading Priorities", ":::"),
        (":::warning", ":::"),
        ('!!! note "Restart"', ""),
        ("> [!NOTE]", ""),
    ],
)
def test_f4_an_admonitions_marker_is_no_sentence(marker: str, closing: str) -> None:
    """vite's env-and-mode.md: ``:::tip Env Loading Priorities. An env file for a
    specific mode ...`` read the marker and its label as a sentence's first words."""
    inner = "An env file for a specific mode takes priority over a generic one."
    quoted = "> " if marker.startswith(">") else ""
    text = f"Vite loads env files from the root.\n\n{marker}\n{quoted}{inner}\n{closing}"
    texts = [s.text for s in split_sentences("Doc: " + text.replace("\n", "\nDoc: "))]
    assert texts == ["Vite loads env files from the root.", inner], texts


FLASK_LOGIN = """\
Doc:     @app.route('/login', methods=['GET', 'POST'])
    def login():
        if request.method == 'POST':
            session['username'] = request.form['username']
            return redirect(url_for('index'))
        return '''
            <form method="post">
        '''
Doc: A note on cookie-based sessions: Flask will take the values you put into the
session object and serialize them into a cookie."""


def test_f2_an_indented_block_whose_lead_in_is_in_the_chunk_before_is_code() -> None:
    """flask-quickstart.rst (pallets/flask docs): the topic merge cut after "Here is how
    sessions work::", and the literal block's Python was a summary ending in an open
    ``'''``; the same with markdown's indented code."""
    texts = [s.text for s in split_sentences(FLASK_LOGIN)]
    assert texts == [
        "A note on cookie-based sessions: Flask will take the values you put into the "
        "session object and serialize them into a cookie."
    ]
    assert ExtractiveSummarizer().summarize(FLASK_LOGIN.split("\nDoc: A note")[0]).summary == ""


def test_f2_an_indented_block_after_a_lead_in_is_code_whatever_it_holds() -> None:
    text = "Doc: The file reads:\nDoc:     name: demo\n    version: 3\nDoc: It ends there."
    assert [s.text for s in split_sentences(text)] == ["The file reads:", "It ends there."]


def test_f2_a_list_items_indented_paragraph_stays_prose() -> None:
    """Indented as much as code, a list item's second paragraph is prose."""
    text = (
        "Doc: - Install the package with your manager of choice.\n"
        "Doc:     Then restart the server so that the new settings are read again.\n"
    )
    assert [s.text for s in split_sentences(text)] == [
        "Install the package with your manager of choice.",
        "Then restart the server so that the new settings are read again.",
    ]


def _texts(text: str) -> list[str]:
    return [s.text for s in split_sentences(text)]


def test_f7_a_restructuredtext_lead_in_ending_in_two_colons_is_a_lead_in() -> None:
    """pep-0572.rst: the recap said ``Original code:: Translation::``; Flask's
    ``Here is how sessions work::`` was kept with both colons."""
    text = "Doc: - Original code::\n\n          x = 1\n\nDoc: - Translation::\n\n          y = 2"
    assert ExtractiveSummarizer().summarize(text).summary == ""
    said = ExtractiveSummarizer().summarize(
        "Doc: In order to use sessions you have to set a secret key on the application. "
        "Sessions are signed with the key, so the user can read them but not change them::"
    )
    assert said.summary.endswith("but not change them.") and "::" not in said.summary


@pytest.mark.parametrize(
    "lead_in",
    [
        "To avoid the error by directly bypassing reverse proxies, you could either:",
        "When unhandled errors are forwarded, they are logged in the server terminal, for example:",
        "Coming back to the previous code example, **FastAPI** will:",
        "If `hostnameOverride` is set alongside `hostname` and `subdomain` fields:",
    ],
)
def test_f10_a_lead_in_whose_list_is_left_out_is_a_fragment(lead_in: str) -> None:
    """vite's server-options.md, FastAPI's README, Kubernetes' pod-hostname.md: "you
    could either.", "for example.", "**FastAPI** will.", an if-clause alone."""
    (first, *_) = split_sentences(f"Doc: {lead_in}\n\nDoc: - one way to do it here\n")
    assert first.text == lead_in and is_fragment(first)


def test_f10_a_condition_with_its_main_clause_stays() -> None:
    (first,) = split_sentences("Doc: If the cache is cold, the first request loads every table:")
    assert not is_fragment(first)


def test_f12_front_matter_and_an_mdx_pages_imports_are_no_sentences() -> None:
    """astro-actions.mdx, MDN's Array.prototype.map page: their first summary was
    ``title: Actions description: Learn how ... import { Steps } from '...';``."""
    text = (
        "Doc: ---\ntitle: Actions\ndescription: Learn how to create type-safe server"
        " functions.\ni18nReady: true\n---\n"
        "Doc: import { Steps } from '@astrojs/starlight/components';\n"
        "import Since from '~/components/Since.astro';\n"
        "Doc: {{JSRef}}\n"
        'Doc: The **`map()`** method of {{jsxref("Array")}} instances creates a new array.\n'
        "Doc: - `callbackFn`\n  - : A function to execute for each element in the array.\n"
    )
    assert _texts(text) == [
        "The **`map()`** method of `Array` instances creates a new array.",
        "`callbackFn`",
        "A function to execute for each element in the array.",
    ]


def test_f3_an_image_element_over_several_lines_is_no_sentence_and_a_caption_loses_its_tags() -> (
    None
):
    """the Rust book's ch04-01: ``<img alt="Three tables: ..." src="img/trpl04-04.svg"...
    <span class="caption">Figure 4-4: ...</span>.`` was a summary, tags and all."""
    text = (
        'Doc: <img alt="Two tables: the first table contains the representation of s1 on the\n'
        'stack, consisting of its length (5)." src="img/trpl04-01.svg" class="center"\n'
        'style="width: 50%;" />\n'
        'Doc: <span class="caption">Figure 4-1: The representation in memory of a `String`\n'
        'holding the value `"hello"` bound to `s1`</span>\n'
    )
    assert _texts(text) == [
        'Figure 4-1: The representation in memory of a `String` holding the value `"hello"`'
        " bound to `s1`"
    ]


def test_f3_a_tag_in_a_code_span_is_the_texts_own() -> None:
    text = 'Doc: Wrap the caption in a `<span class="caption">` element, then a <b>bold</b> word.'
    assert _texts(text) == [
        'Wrap the caption in a `<span class="caption">` element, then a bold word.'
    ]


LONG_LINES = [
    "Doc: [a]: " + "." * 100_000 + " !",  # a link definition's shape that never closes
    "Doc: import" + " " * 100_000 + "x",  # an import's shape over a run of blanks
]


@pytest.mark.parametrize("text", LONG_LINES, ids=["link-definition", "import"])
def test_a_long_line_of_a_markup_shape_is_read_in_linear_time(text: str) -> None:
    """The review of this round's change: the patterns of a link definition and an MDX
    import backtracked over a long line (quadratic, cubic: `recap` of such a file never
    ended). In a process of its own, so a hang is a failure, not a stuck suite."""
    import subprocess
    import sys

    script = (
        "import sys; from chunkscope.engine.summarize.extractive import ExtractiveSummarizer;"
        "ExtractiveSummarizer().summarize(sys.stdin.read())"
    )
    subprocess.run([sys.executable, "-c", script], input=text, text=True, check=True, timeout=20)
