"""Walk 64 (real public files; sources in the walk's sources.md), the recap findings left
after tests/test_walk64a.py and tests/test_walk64b.py: F16 (a Codex step-by-step answer:
What happened said its lead-ins, Where it stopped its steps without their commands), F13
(Where it stopped dropped step 2 of a numbered procedure and the request the steps serve)
and F7 (the Task folded an issue template's HTML comments in).

Each test fails on the code before its fix."""

from __future__ import annotations

MPL_ISSUE = """\
hist() no longer respects range=... when density=True
<!--To help us understand and resolve your issue, please fill out the form to the best of \
your ability.-->
<!--You can feel free to delete the sections that do not apply.-->

### Bug report

**Bug summary**

<!--A short 1-2 sentences that succinctly describes the bug-->

**Code for reproduction**

<!--A minimum code snippet required to reproduce the bug.
Please make sure to minimize the number of dependencies required.-->
```python
print(bins)
```

**Expected outcome** Some array where the first value is 0 and the last one is 1.
"""


def test_f7_the_task_leaves_out_an_issue_template_s_comments() -> None:
    """mini-mpl-13989: the Task read ``**Bug summary** <!--A short 1-2 sentences that
    succinctly describes the bug--> **Code for reproduction** <!--A minimum ...-->``."""
    from chunkscope.engine.recap.sections import _first_request

    task = _first_request(MPL_ISSUE)
    assert "<!--" not in task and "-->" not in task, task
    assert "1-2 sentences" not in task and "minimize the number" not in task, task
    assert task.startswith("hist() no longer respects range=... when density=True"), task
    assert "**Bug summary** **Code for reproduction** `print(bins)`" in task, task
    assert task.endswith("the last one is 1."), task
    # a comment in code is the code's
    code = "Run this:\n```html\n<!-- keep -->\n<p>x</p>\n```"
    assert "<!-- keep -->" in _first_request(code)


THROTTLESTOP = (
    "I am unable to download the ThrottleStop installer automatically due to website"
    " protections. Please download it for me.\n"
    "1. Open a web browser and go to: https://www.techspot.com/downloads/5863-throttlestop.html\n"
    "2. Click the 'Download Now' button and save the file.\n"
    "3. Please tell me the full path to the downloaded file"
    " (e.g., C:\\Users\\YourUser\\Downloads\\ThrottleStop.zip)."
)


def test_f13_where_it_stopped_says_a_numbered_procedure_whole_with_its_lead_in() -> None:
    """gemini-mg-1d1e17a8: Where it stopped said steps 1 and 3 alone, without step 2
    ("Click the 'Download Now' button ...") and without "Please download it for me."."""
    from chunkscope.engine.recap.sections import _last_lines_items

    lines, _, items, _ = _last_lines_items([THROTTLESTOP])
    assert lines == (
        "I am unable to download the ThrottleStop installer automatically due to website"
        " protections.",
        "Please download it for me. Open a web browser and go to:"
        " https://www.techspot.com/downloads/5863-throttlestop.html",
        "Click the 'Download Now' button and save the file.",
        "Please tell me the full path to the downloaded file"
        " (e.g., C:\\Users\\YourUser\\Downloads\\ThrottleStop.zip).",
    ), lines
    assert items[1:] == ((1, 1), (1, 2), (1, 3)), items  # (a fit keeps them in order)
    # a bulleted list keeps what each item says alone
    bullets = THROTTLESTOP.replace("1. ", "- ").replace("2. ", "- ").replace("3. ", "- ")
    bullet_lines, _, _, _ = _last_lines_items([bullets])
    assert not any("Download Now" in line for line in bullet_lines), bullet_lines


def test_f13_a_numbered_list_said_from_its_first_item_on_is_left_as_it_was() -> None:
    """A report's list whose last item alone says nothing (``3. **Pushed:** All changes
    are live.``) reads as shorter without it, not as a step skipped: it is not said whole
    (gemini-m-gemini-repo's recap lost a commit line and a What happened paragraph to it)."""
    from chunkscope.engine.recap.sections import _last_lines

    report = (
        "I have completed the setup.\n"
        "1. **Synced Data:** Updated `scripts/sync_raw_logs.py` to pull readable logs.\n"
        "2. **GitHub Action:** Created `.github/workflows/convert_logs.yml`.\n"
        "3. **Pushed:** All changes are live in your private repo.\n"
    )
    lines, _ = _last_lines([report])
    assert not any("completed the setup" in line or "Pushed" in line for line in lines), lines


SOULPASS_LAST = """\
That error means your connected wallet has no Token-2022 token account for this devnet mint:

```bash
9pan9bMn5HatX4EJdBwg9VgCa7Uz5HL8N1m5D3NdXejP
```

Use these steps.

**If your browser wallet is Phantom/Solflare**

Replace `<YOUR_WALLET_ADDRESS>` with the wallet connected in Civitas.

```bash
solana config set --url devnet

spl-token --program-2022 create-account \\
  9pan9bMn5HatX4EJdBwg9VgCa7Uz5HL8N1m5D3NdXejP \\
  --owner <YOUR_WALLET_ADDRESS>
```

Then find the new token account:

```bash
spl-token --program-2022 accounts --owner <YOUR_WALLET_ADDRESS>
```

Copy the account address shown for mint `9pan9b...dXejP`, then fund it:

```bash
solana transfer <TOKEN_ACCOUNT_ADDRESS> 0.5 --allow-unfunded-recipient
```

Now go back to Civitas and deposit an amount less than the funded balance, for example `0.1`.

Then retry the treasury deposit."""


def test_f16_where_it_stopped_says_each_step_with_its_command_in_order() -> None:
    """codex-soulpass.jsonl: Where it stopped said ``Replace ...`` and ``Now go back ...``
    of a step-by-step answer, none of its commands; each step on its colon is said with
    its block now, the steps a list a fit cuts from its end ("(and N more items)")."""
    from chunkscope.engine.recap.sections import _kept_blocks, _last_lines_items

    lines, _, items, _ = _last_lines_items([SOULPASS_LAST])
    replace = "Replace `<YOUR_WALLET_ADDRESS>` with the wallet connected in Civitas."
    assert lines == (
        "That error means your connected wallet has no Token-2022 token account for this"
        " devnet mint: `9pan9bMn5HatX4EJdBwg9VgCa7Uz5HL8N1m5D3NdXejP`.",
        replace,
        "Then find the new token account:"
        " `spl-token --program-2022 accounts --owner <YOUR_WALLET_ADDRESS>`.",
        "Copy the account address shown for mint `9pan9b...dXejP`, then fund it:"
        " `solana transfer <TOKEN_ACCOUNT_ADDRESS> 0.5 --allow-unfunded-recipient`.",
        "Now go back to Civitas and deposit an amount less than the funded balance, for"
        " example `0.1`.",
    ), lines
    assert items == ((1, 1), (0, 0), (1, 2), (1, 3), (0, 0)), items
    # a kept sentence over a block says it when there is room (`Section.full`): alone,
    # a line too long to fit was lost whole (aider-cargame: "You could add ...")
    assert _kept_blocks([SOULPASS_LAST], lines) == (
        "",
        f"{replace} `solana config set --url devnet; spl-token --program-2022 create-account"
        " 9pan9bMn5HatX4EJdBwg9VgCa7Uz5HL8N1m5D3NdXejP --owner <YOUR_WALLET_ADDRESS>`.",
        "",
        "",
        "",
    )


def test_f16_what_happened_leaves_out_the_answer_s_lead_ins_and_bare_steps() -> None:
    """codex-soulpass.jsonl: What happened said ``Use these steps.``, ``Then find the new
    token account.`` and ``Then retry the treasury deposit.`` of the answer Where it
    stopped tells; a sentence of it with content that section left out is still told."""
    from chunkscope.engine.recap.core import Candidate, _deduped
    from chunkscope.engine.recap.sections import Section, _fold, _inline_fences
    from chunkscope.engine.summarize.base import Summary

    said = (
        "Ran `spl-token sync-native --help` (exit 0). Use these steps. Then find the new"
        " token account. Now go back to Civitas and deposit an amount less than the funded"
        " balance, for example `0.1`. Then retry the treasury deposit."
    )
    cand = Candidate(index=0, summary=Summary(said, said), score=1.0)
    steps_of = _fold(_inline_fences(SOULPASS_LAST))
    prefix = "## Where it stopped\nThat error means your connected wallet has no token account.\n"
    (out,) = _deduped([cand], prefix, steps_of)
    assert out.text == (
        "Ran `spl-token sync-native --help` (exit 0). Now go back to Civitas and deposit an"
        " amount less than the funded balance, for example `0.1`."
    ), out.text
    (kept,) = _deduped([cand], prefix)  # (no step-by-step answer told: as it was)
    assert kept.text == said, kept.text
    assert Section("last", ()).steps_of == ""


def test_f16_only_a_block_of_commands_is_a_step_s() -> None:
    """A step's block is commands (```` ```bash ````): an edit's code (```` ```python ````)
    or a command's output (an unlabelled block under "everything is pushed and clean:")
    is not said in Where it stopped (spotter-258c7280 lost a commit line to a `git
    status` printed there)."""
    from chunkscope.engine.recap.sections import _last_lines

    text = (
        "The parser now keeps `0.1` as given.\n\n"
        "Add this method to `Parser`:\n\n```python\ndef parse(self): pass\n```\n\n"
        "Then run the tests:\n\n```bash\npytest -q tests/test_parser.py\n```\n\n"
        "Yes — everything is pushed and clean:\n\n```\nnothing to commit\n```\n"
    )
    lines, _ = _last_lines([text])
    assert "Then run the tests: `pytest -q tests/test_parser.py`." in lines, lines
    assert not any("def parse" in line or "nothing to commit" in line for line in lines)
