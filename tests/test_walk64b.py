"""Walk 64 (real public files: requests' and cargo's docs, Codex, Gemini CLI, Claude Code,
aider and mini-swe-agent sessions; sources in the walk's sources.md), the summary
findings: F11 (doctest blocks of reStructuredText as summaries), F16 (a Codex
step-by-step answer's bold title and lead-ins kept without their commands), F5 (a lead-in
left open by its last word made a sentence), F13 (Where it stopped dropping a step of a
numbered procedure), F12 (list items without their lead-in; reference links), F7 (an
issue template's bold label), F8 (a bash-mode command as a sentence), F6 (a message cut
short kept as a sentence), F10 (a closing quote for Python-dict quotes) and F4 (What
happened repeating a step Where it stopped says).

Each test fails on the code before its fix."""

from __future__ import annotations

from chunkscope.engine.summarize.extractive import ExtractiveSummarizer, split_sentences


def _summary(text: str) -> str:
    """The extractive summary of a chunk of a document's paragraphs (``Doc: `` each)."""
    return ExtractiveSummarizer().summarize(text).summary


COOKIES = """\
Doc:     >>> r = requests.get(url, cookies=cookies)
    >>> r.text
    '{"cookies": {"cookies_are": "working"}}'
Doc: Cookies are returned in a RequestsCookieJar, which acts like a dict but also offers a
more complete interface, suitable for use over multiple domains or paths."""

TIMEOUT = """\
Doc:     >>> requests.get('https://github.com/', timeout=0.001)
    Traceback (most recent call last):
      File "<stdin>", line 1, in <module>
    requests.exceptions.Timeout: HTTPConnectionPool(host='github.com', port=80): Request \
timed out. (timeout=0.001)
Doc: If no timeout is specified explicitly, requests do not time out."""

REDIRECT = """\
Doc:     r = requests.get('http://github.com/')
Doc:     r.status_code
    200
Doc: If you're using GET, OPTIONS, POST, PUT, PATCH or DELETE, you can disable redirection \
handling with the allow_redirects parameter."""


def test_f11_a_doctest_paragraph_is_code_wherever_it_falls() -> None:
    """requests' quickstart.rst: ``>>> r.url 'https://github.com/'. If you're using GET,
    ...`` and a traceback were recap summaries, the block's ``::`` in the chunk before."""
    assert _summary(COOKIES) == (
        "Cookies are returned in a RequestsCookieJar, which acts like a dict but also offers"
        " a more complete interface, suitable for use over multiple domains or paths."
    )
    assert _summary(TIMEOUT) == "If no timeout is specified explicitly, requests do not time out."
    margin = COOKIES.replace("Doc:     >>>", "Doc: >>>").replace("\n    ", "\n")
    assert ">>>" not in _summary(margin)


def test_f11_a_literal_blocks_second_paragraph_is_code() -> None:
    """The block a ``::`` (in the chunk before) opens goes on over its blank lines: its
    later paragraphs, here one with no prompt and no line of code, are code too."""
    assert [s.text for s in split_sentences(REDIRECT)] == [
        "If you're using GET, OPTIONS, POST, PUT, PATCH or DELETE, you can disable"
        " redirection handling with the allow_redirects parameter."
    ]


SOULPASS_LAST = """\
That error means your connected wallet has no Token-2022 token account for this devnet mint:

```bash
9pan9bMn5HatX4EJdBwg9VgCa7Uz5HL8N1m5D3NdXejP
```

Use these steps.

**If your browser wallet is Phantom/Solflare**

Replace `<YOUR_WALLET_ADDRESS>` with the wallet connected in Civitas.

```bash
solana airdrop 2 <YOUR_WALLET_ADDRESS>
```

Then find the new token account:

```bash
spl-token --program-2022 accounts --owner <YOUR_WALLET_ADDRESS>
```

Copy the account address shown for mint `9pan9b...dXejP`, then fund it:

```bash
solana transfer <TOKEN_ACCOUNT_ADDRESS> 0.5 --allow-unfunded-recipient
```

Verify:

```bash
spl-token --program-2022 accounts --owner <YOUR_WALLET_ADDRESS>
```

Now go back to Civitas and deposit an amount less than the funded balance, for example `0.1`."""


def test_f16_a_step_by_step_answers_title_and_lead_ins_are_no_sentences() -> None:
    """codex-soulpass.jsonl's last message: Where it stopped said ``**If your browser
    wallet is Phantom/Solflare**.`` and ``Copy ... then fund it.`` without the commands
    their colons introduce, and What happened ``Then find the new token account.``."""
    from chunkscope.engine.recap.sections import _last_lines

    lines, _ = _last_lines([SOULPASS_LAST])
    said = " ".join(lines)
    assert "Phantom/Solflare" not in said, lines
    # (a step on its colon is said with its command, never alone: tests/test_walk64c.py)
    assert "find the new token account: `spl-token" in said, lines
    assert "fund it." not in said and "fund it: `solana transfer" in said, lines
    assert "Now go back to Civitas" in said, lines
    chunk = (
        "Bot: Replace `X` with the wallet connected in Civitas.\n"
        "Bot: Then find the new token account:\nBot: ```bash\nspl-token accounts\n```"
    )
    assert _summary(chunk) == "Replace `X` with the wallet connected in Civitas."


def test_f16_a_lead_in_that_says_something_stays_in_a_document() -> None:
    """A document's paragraph that ends on its block's colon still says something: it is
    kept (the rule is for a message's lead-in, whose step is its block)."""
    text = "Doc: To send your own cookies to the server, you can use the cookies parameter::"
    assert _summary(text).startswith("To send your own cookies to the server")


def test_f5_a_lead_in_left_open_by_its_last_word_is_no_sentence() -> None:
    """aider-brejlator.md: ``..., particularly.`` and Czech ``Tyto změny zajistí, že.``
    ("These changes ensure that.") were What happened sentences."""
    css = (
        "Bot: 1. In `app/styles/app.css`, make sure you've applied the CSS changes we"
        " discussed earlier, particularly:\n\n```css\n.grid { gap: 4px; }\n```\n"
    )
    assert "particularly" not in _summary(css)
    czech = "Bot: Tyto změny zajistí, že:\n\n1. Na mobilech dva produkty vedle sebe\n"
    # (said with its list's item when one is kept: "Tyto změny zajistí, že: Na ...")
    assert "že." not in _summary(czech) and "že:" not in _summary(czech.split("\n\n")[0])
    # its list in the next chunk, in a document too: the word left open says so alone
    assert _summary("Doc: Features of a package are unified across the graph, notably:") == ""


def test_f10_python_dict_quotes_leave_no_quotation_open() -> None:
    """mini-django-12308's Task cut at 300 tokens ended ``... in...'``: the single quotes
    of ``{'foo': 'bar'}`` were read as a quotation left open."""
    from chunkscope.engine.summarize.extractive import _truncate

    text = (
        "For example, {\"foo\": \"bar\"} would be displayed as {'foo': 'bar'}, which is not"
        " valid JSON. I believe the fix would be to add a special case in"
        " django.contrib.admin.utils.display_for_field to call the prepare_value of the"
        " JSONField (not calling json.dumps directly to take care of the InvalidJSONInput)."
    )
    cut = _truncate(text, 160)
    assert cut.endswith("..."), cut
    assert _truncate("a {'a': ['b', 'c']} then " + "x " * 100, 60).endswith("..."), cut
    # a quotation the cut leaves open is still closed
    assert _truncate("He said 'the cache is cold and " + "y " * 100, 50).endswith("...'")


def test_f8_a_bash_mode_command_is_no_sentence() -> None:
    """cc-cloak.jsonl: the user's ``! curl -fsSL https://www.solana.new/setup.sh | bash``
    (Claude Code's bash mode) was said ``... | bash.``."""
    text = (
        "You: ! curl -fsSL https://www.solana.new/setup.sh | bash\n"
        "Bot: There's an `apply-grant` skill installed."
    )
    assert _summary(text) == "There's an `apply-grant` skill installed."


def test_f7_an_issue_templates_bold_label_with_only_a_comment_is_no_summary() -> None:
    """mini-mpl-13989: What happened opened with ``**Bug summary**.``, the form's label
    whose value is the template's comment."""
    text = (
        "You: ### Bug report\n\n**Bug summary**\n\n"
        "<!--A short 1-2 sentences that succinctly describes the bug-->\n\n"
        "**Code for reproduction**\n\n<!--A minimum code snippet.-->\n\n"
        "hist() no longer respects range when density is True."
    )
    assert _summary(text) == "hist() no longer respects range when density is True."


def test_f6_a_message_cut_short_on_an_open_stump_is_no_sentence() -> None:
    """gemini-mg-fc2fd534: message 5 ended ``The standard`` (the model stopped there);
    What happened said ``The standard.``."""
    text = (
        "Bot: Ansible runs its control node on *Linux* or *macOS*, not on *Windows* systems."
        "\n\nThe standard\nTool: Updated the todo list (3 items, 0 done)."
    )
    assert "The standard" not in _summary(text)
    assert "The standard" not in _summary(text.split("\nTool")[0])


def test_f13_no_stop_is_glued_to_a_url() -> None:
    """gemini-mg-1d1e17a8: Where it stopped said ``Open a web browser and go to:
    https://www.techspot.com/downloads/5863-throttlestop.html.``, a stop the message did
    not have, read as the URL's."""
    from chunkscope.engine.summarize.extractive import terminated

    url = "Open a web browser and go to: https://www.techspot.com/downloads/5863-throttlestop.html"
    assert terminated(url) == url
    assert terminated("Open a web browser") == "Open a web browser."
    # in a summary's paragraph the next sentence would read on from the URL
    assert terminated(url, url_stop=True) == url + "."
    assert terminated("HTTP: `http://localhost:5069`") == "HTTP: `http://localhost:5069`."


CARGO_MINOR = """\
Doc: * The following should usually **not** be done in a minor release:
  * [Remove a feature][cargo-feature-remove] or [optional dependency][cargo-remove-opt-dep].
  * [Moving existing public code behind a feature][item-remove].
  * [Remove a feature from a feature list][cargo-feature-remove-another]."""

X402_SKILLS = """\
Bot: Yes. In this session I have a fairly large Solana-focused skill set available.

Relevant Solana skills include:
- `solana-beginner` for newcomers
- `virtual-solana-incubator` for deep technical Solana training
- `build-mobile` for Solana mobile apps
- `apply-grant` for Solana/Superteam-style grant applications
"""


def test_f12_list_items_are_said_with_the_lead_in_that_gives_their_sense() -> None:
    """cargo-features.md: ``[Remove a feature][cargo-feature-remove] or ...`` was kept as
    advice without "The following should usually **not** be done in a minor release:",
    and with its reference-link markup; codex-x402agent: three of twelve skills kept
    without "Relevant Solana skills include:"."""
    summary = _summary(CARGO_MINOR)
    assert summary.startswith(
        "The following should usually **not** be done in a minor release: Remove a feature"
    ), summary
    assert "][" not in summary and summary.count("The following") == 1, summary
    skills = _summary(X402_SKILLS)
    first = skills.find("`")
    assert first > 0 and "Relevant Solana skills include: `" in skills, skills
    assert skills.count("include:") == 1, skills


def test_f12_a_reference_link_is_said_as_its_text_and_an_index_stays() -> None:
    text = "Doc: See [the features chapter][features] for how a[0][1] indexes a grid of cells."
    assert [s.text for s in split_sentences(text)] == [
        "See the features chapter for how a[0][1] indexes a grid of cells."
    ]


def test_f4_what_happened_does_not_repeat_a_step_where_it_stopped_lists() -> None:
    """gemini-mg-cba3c8b5: Where it stopped said ``**Steps:** Check disk info with
    `wmic`; Check WSL version; ...`` and What happened ``Check disk info with `wmic`.``
    again, as if it had been done."""
    from chunkscope.engine.recap.core import Candidate, _deduped
    from chunkscope.engine.summarize.base import Summary

    prefix = (
        "## Where it stopped\n**Steps:** Check disk info with `wmic`; Check WSL version; "
        "If all looks good, I'll retry the mount.\n"
    )
    said = "Set Disk 2 Offline. Mount Disk 2 to WSL. Check disk info with `wmic`."
    cand = Candidate(index=0, summary=Summary(said, said), score=1.0)
    (out,) = _deduped([cand], prefix)
    assert out.text == "Set Disk 2 Offline. Mount Disk 2 to WSL.", out.text
