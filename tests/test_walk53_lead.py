"""Walk 52 and 53's findings on summaries that the lead mended (F1, F2 of walk 53; F7,
F10 of walk 52): a user's pasted shell commands and JSON config became summaries; a form
label in bold, an aside or a quoted label alone, an outline's title, a list's short item
without its lead-in, a field pointing at another task and "All done." were kept as
sentences. Each test fails on the code before the fix."""

from __future__ import annotations

import pytest

from chunkscope.engine.summarize import ExtractiveSummarizer
from chunkscope.engine.summarize.extractive import (
    Sentence,
    is_fragment,
    is_narration,
    sentences_of,
    split_sentences,
)

SUMMARIZER = ExtractiveSummarizer()


def summary_sentences(text: str) -> list[str]:
    return sentences_of(SUMMARIZER.summarize(text).text)


#: A request shaped as codex-scout's (walk 51's file: samar-58/scout, a Codex CLI
#: rollout): a how-to whose commands and config are pasted without a fence.
PASTED = (
    "You: Set up ZenMux in opencode using the OpenAI-compatible API.\n\n"
    "  1. Create or edit this file:\n\n"
    "  ~/.config/opencode/opencode.jsonc\n\n"
    "  2. Put this config inside:\n\n"
    "  {\n"
    '    "$schema": "https://opencode.ai/config.json",\n'
    '    "provider": {\n'
    '      "zenmux": {\n'
    '        "name": "ZenMux",\n'
    '        "env": ["ZENMUX_API_KEY"]\n'
    "      }\n"
    "    }\n"
    "  }\n\n"
    "  3. Add your ZenMux API key to your shell config.\n\n"
    "  For zsh:\n\n"
    "  echo 'export ZENMUX_API_KEY=\"sk-ai-v1-your-key-here\"' >> ~/.zshrc\n"
    "  source ~/.zshrc\n\n"
    "  4. Test that opencode sees the model:\n\n"
    "  $ opencode models zenmux\n"
)


def test_pasted_commands_and_json_lines_are_code_not_sentences() -> None:
    """F1 (walk 53): the user's ``echo ... >> ~/.zshrc`` / ``source ~/.zshrc`` lines and
    the JSON config were joined into sentences and kept as the recap's summaries."""
    said = [s.text for s in split_sentences(PASTED)]
    assert not any("echo" in s or "source ~" in s or "$schema" in s for s in said), said
    assert not any("opencode models" in s or '"name"' in s for s in said), said
    assert "Add your ZenMux API key to your shell config." in said
    summary = " ".join(summary_sentences(PASTED))
    assert "zshrc" not in summary and "{" not in summary, summary


@pytest.mark.parametrize(
    "line",
    [
        "cd into the folder and run the tests",  # a sentence: three small words
        "go to ~/settings.",  # ends as a sentence does
        "source of truth is the /docs folder",
        '"Main things": arrival, each day\'s anchor and the flight home',  # a quoted phrase
        "When I use sqlite://C:/db I get {",  # a sentence that a block follows
    ],
)
def test_prose_that_looks_a_little_like_code_stays_prose(line: str) -> None:
    """The rule takes commands and JSON, not a sentence that starts with a program's
    name or a quotation, nor one that opens a block at its end."""
    said = [s.text for s in split_sentences(f"You: {line}")]
    assert said == [line], said


@pytest.mark.parametrize(
    ("text", "after"),
    [
        ("**Personal GitHub Profile**", ""),  # a form's label in bold (F2)
        ("(no real QR image yet)", "block"),  # an aside alone under a block (F2)
        ('"My Tickets"', ""),  # a quoted label alone (F2)
        ("How to test registration", "item"),  # an outline's title (F2)
        ("What was added", ""),
        ("X profile", "item"),  # a list's short item, its lead-in not here (F2)
        ("Depends on: Task 1", ""),  # a field pointing at another task (walk 52, F10)
        ("See: #12", ""),
        ("Launch the dashboard from the menu or by running:", ""),  # its command cut
    ],
)
def test_labels_asides_and_titles_are_fragments(text: str, after: str) -> None:
    assert is_fragment(Sentence(text, "Bot", 0, True, after=after))


@pytest.mark.parametrize(
    ("text", "after"),
    [
        ("**`multiply_numbers`** in `src/math_utils.py`", "item"),  # names what was added
        ("Tests: 38 passed", ""),
        ("Version: 1.2.3", ""),
        ("Supabase backend (auth, database, roles).", "item"),
        ("What was added is a cache.", ""),
        ("Opened: PR #112", ""),  # a label saying what was done to it (walk 57, F14)
        ("Blocked by: issue #88", ""),
        ("Closed: issues 4, 5 and 9", ""),
    ],
)
def test_short_sentences_that_say_something_are_kept(text: str, after: str) -> None:
    assert not is_fragment(Sentence(text, "Bot", 0, True, after=after))


def test_all_done_is_filler_but_a_sentence_after_it_is_not() -> None:
    """F7 (walk 52): "Everything the user asked for is done. All done." said one thing
    twice: "All done." is filler, as "Done." was."""
    assert is_narration("All done.") and is_narration("All set!")
    assert not is_narration("All done, the loader is tidy now.")


def test_an_excerpts_tail_goes_with_the_call_said_already() -> None:
    """F3 (walk 55): a collapsed call's output excerpt split at its own ``... Capital``
    left its tail ("Refactoring opportuniti...") as a summary when the call itself was
    said already by a candidate ahead of it."""
    from chunkscope.engine.recap.core import Candidate, _deduped
    from chunkscope.engine.summarize.base import Summary

    call = (
        'Ran `git commit -m "feat: spans"` (failed): Pre-commit validation failed: '
        "Checking 88 source files (this might take a while) ... Refactoring opportuniti..."
    )
    head = call.rsplit(" Refactoring", 1)[0]  # the sections said the call, not its tail
    second = Candidate(1, Summary(call, f"{call} The dialyzer type error is in hooks.ex."), 1.0)
    (again,) = _deduped([second], f"## Last outcome\n{head}")
    assert again.summary.summary == "The dialyzer type error is in hooks.ex.", again.summary
    # a sentence of its own that ends in "..." after a sentence said already stays
    said = "The tests pass on both machines now."
    alone = Candidate(1, Summary("x", f"{said} The rest follows..."), 1.0)
    (kept,) = _deduped([alone], f"## Task\n{said}")
    assert kept.summary.summary == "The rest follows...", kept.summary


def test_a_glob_in_inline_code_is_no_bold_for_a_cut() -> None:
    """F5 (walk 55): a cut sentence that held ``**/*.py`` in inline code got a stray
    ``**`` after its ``...`` (the glob counted as an open bold)."""
    from chunkscope.engine.summarize.extractive import _truncate

    text = "Listed `**/*.py`: " + ", ".join(f"tests/test_{i}.py" for i in range(60))
    cut = _truncate(text)
    assert cut.endswith("...") and not cut.endswith("...**"), cut
    assert _truncate("**Bold " + "word " * 80 + "end**").endswith("...**")


def test_a_sentence_inside_another_chosen_is_said_once() -> None:
    """F11 (walk 55): "I'm still getting a prompt_history with only Response: [no
    response captured]. Response: [no response captured]." said the user's pasted line
    twice: once inside the longer sentence, once alone."""
    text = (
        "You: I'm still getting a prompt_history with only Response: [no response captured].\n"
        "You: Prompt: fix the clock\nResponse: [no response captured]\n\n"
        "You: Make sure model responses are included when I run the export script."
    )
    said = summary_sentences(text)
    assert sum("no response captured" in s for s in said) == 1, said


def test_a_users_go_on_is_filler() -> None:
    """A user's "Continue." opened summaries ("Continue. Everything the user asked for is
    done."): it tells a resuming agent nothing."""
    assert is_narration("Continue.") and is_narration("Go ahead!")
    assert not is_narration("Continue the migration of the cache to SQLite.")


def test_pasted_python_under_a_label_is_code_and_its_comments_no_titles() -> None:
    """F13 (walk 53): an aider architect's unfenced "Locate:" / "Replace with:" blocks
    (lines 10068-10082 of bench/recap_sessions/aider-text2sql.md) were read as prose:
    ``Locate: def ecommerce_db_path() -> str: return str(...)`` in Where it stopped."""
    text = (
        "Bot: Update the ecommerce_db_path fixture to return the desired URL.\n\n"
        "Locate:\ndef ecommerce_db_path() -> str:\n"
        '    return str(REPO_ROOT / "ecommerce.db")\n\n'
        "Replace with:\ndef ecommerce_db_path() -> str:\n"
        "    # Ensure tests use a URL, not a plain path\n"
        '    return "sqlite://./ecommerce.db"\n\n'
        "After:\nurl = normalize_to_url(raw)\n"
        'monkeypatch.setenv("DB_PATH", ecommerce_db_path)\n\n'
        "# Next steps\n\nRun the tests again."
    )
    sentences = split_sentences(text)
    said = [s.text for s in sentences]
    assert not any("def " in s or "return s" in s or "normalize_to_url" in s for s in said)
    assert not any('return "' in s for s in said), said
    assert not any("Ensure tests" in s for s in said), said  # a comment, no heading
    assert [s.text for s in sentences if s.heading] == ["Next steps"]
    summary = " ".join(summary_sentences(text))
    assert "Update the ecommerce_db_path fixture" in summary and "def " not in summary


@pytest.mark.parametrize(
    "line",
    [
        "return the value to the caller",
        "if you want, I can do it:",
        "for the tests to pass we need:",
        "import the module first and then run it",
        "with that done, we move on:",
        "x = y is the rule here.",
    ],
)
def test_prose_starting_with_a_keyword_stays_prose(line: str) -> None:
    said = [s.text for s in split_sentences(f"Bot: {line}")]
    assert said == [line], said


@pytest.mark.parametrize(
    "nudge", ["proceed please", "Yes please!", "please continue", "go ahead please"]
)
def test_a_nudge_with_please_is_no_request(nudge: str) -> None:
    """F2 (walk 54): "proceed please" was a `Later:` request of the recap."""
    from chunkscope.engine.segment.requests import is_request

    assert not is_request(nudge)
    assert is_request("please proceed with the migration of the cache")


def test_a_compaction_summary_without_its_flag_is_no_request() -> None:
    """walk 53 (aside of F8): a role/text export of a Claude Code session (walk 51's
    cc-tradearena.jsonl, pratikbuilds/trade_arena) keeps the compaction summary as a
    user message without ``isCompactSummary``: it was the Task's first ``Later:``."""
    from chunkscope.engine.segment.requests import is_request

    preamble = (
        "This session is being continued from a previous conversation that ran out of "
        "context. The summary below covers the earlier portion of the conversation.\n\n"
        "Summary:\n1. Primary Request and Intent: build landing pages"
    )
    assert not is_request(preamble)
    assert is_request("This session is slow; continue the profiling from yesterday please")


def test_where_it_stopped_says_an_item_with_its_lead_in_and_its_list() -> None:
    """F4 (walk 53): Where it stopped kept one list item of three without its lead-in
    (Gemini CLI chat: "`gtk-theme='adw-gtk3'` (Adwaita ...)." of three settings
    switched; aider: "All bug fixes and optimizations from recent commits." of what a
    README now includes). Such an item is said with its lead-in and its list's items; a
    list whose every item says itself keeps a line per item."""
    from chunkscope.engine.recap.sections import _last_lines

    nested = (
        "The switch to light mode came from Helium.\n"
        "-   **Timeline:**\n"
        "    -   **17:08:** Helium processes started.\n"
        "    -   **The Change:** The `dconf` settings were switched to:\n"
        "        -   `color-scheme='prefer-light'`\n"
        "        -   `gtk-theme='adw-gtk3'` (Adwaita, the default GNOME light theme)\n"
        "        -   `icon-theme='Breeze_Light'`\n"
    )
    lines, _ = _last_lines([nested])
    assert (
        "**The Change:** The `dconf` settings were switched to: `color-scheme='prefer-light'`;"
        " `gtk-theme='adw-gtk3'` (Adwaita, the default GNOME light theme);"
        " `icon-theme='Breeze_Light'`."
    ) in lines, lines
    assert not any(line.startswith("`gtk-theme") for line in lines), lines
    readme = (
        "The updated README now includes:\n"
        "1. More detailed technical descriptions of each feature\n"
        "2. All bug fixes and optimizations from recent commits\n"
        "3. Better organization of information\n"
    )
    lines, _ = _last_lines([readme])
    assert lines == (
        "The updated README now includes: More detailed technical descriptions of each"
        " feature; All bug fixes and optimizations from recent commits; Better"
        " organization of information.",
    ), lines
    done = (
        "All four subtasks are done:\n"
        "- **a0y.1**: lifecycle hooks added in `registry.ex`.\n"
        "- **a0y.2**: bootstrap sync in `sync.ex` with 12 tests.\n"
    )
    lines, _ = _last_lines([done])
    assert lines == (  # the lead-in opens the first item's line, said once
        "All four subtasks are done: **a0y.1**: lifecycle hooks added in `registry.ex`.",
        "**a0y.2**: bootstrap sync in `sync.ex` with 12 tests.",
    ), lines


def test_a_short_bold_title_before_a_block_is_no_sentence_where_it_stopped() -> None:
    """Walk 56's cc-posthog.jsonl (leolin84200704/posthog-impact-dashboard @3adbaa8f):
    a last message of two bold titles each over a code block said ``**1. Approach
    summary (~30 words).**`` alone as Where it stopped; the message with its blocks
    inline says what was given. A step in bold that says what it does stays a sentence."""
    from chunkscope.engine.recap.sections import _last_lines

    last = (
        "**1. Approach summary (~30 words):**\n\n```\n4 orthogonal pillars: Ship, Lift, "
        "Reach, Steer.\n```\n\n**2. Session file:**\n\n```\n/Users/u/.claude/s.jsonl\n```"
    )
    lines, _ = _last_lines([last])
    assert lines and "4 orthogonal pillars" in lines[0], lines
    step = "**1. Update `App.js` to manage theme state and add the toggle button:**"
    assert not is_fragment(Sentence(step, "Bot", 0, True))


def test_mini_swe_agents_thought_label_is_no_part_of_a_summary() -> None:
    """Walk 56's mini-yudai.traj.json (pranay5255/YudaiV3 @b66cf8ba, mini-swe-agent 1.14
    text mode): every summary and Where it stopped opened on the ``THOUGHT:`` label the
    harness's prompt asks the model to write."""
    from chunkscope.engine.recap.sections import _last_lines

    text = "Bot: THOUGHT: The dev server started without errors, so the fix works."
    assert [s.text for s in split_sentences(text)] == [
        "The dev server started without errors, so the fix works."
    ]
    lines, _ = _last_lines(["THOUGHT: The patch adds the missing `header_rows` argument."])
    assert lines == ("The patch adds the missing `header_rows` argument.",), lines
    said = [s.text for s in split_sentences("You: THOUGHT: keep this as typed.")]
    assert said == ["THOUGHT: keep this as typed."]


@pytest.mark.parametrize(
    "line",
    [
        '"Error": [object Object] comes from src/drafts.js line 42, which passes the object.',
        "npm install fails on /usr/lib",
        "cat /etc/hosts looks fine",
        "make -j4 finished in 2m",
        "ls ~/Downloads shows nothing new",
        "return 'ok' when the token is valid, otherwise 401",
    ],
)
def test_a_sentence_that_starts_like_code_stays_prose(line: str) -> None:
    """F4 (walk 57): a sentence opening on a quoted label and a bracket, or on a
    program's name and a path, was taken for pasted code and dropped."""
    said = [s.text for s in split_sentences(f"Bot: {line}")]
    assert said == [line], said


def test_a_lead_in_with_an_aside_is_still_a_title() -> None:
    """F12 (walk 57): docs/performance.md's "What changed (each keeps the results
    identical; ...):" over its table was said as a sentence; its aside added words."""
    for text in (
        "What it adds (Claude Code; the other two have the same shape):",
        "Speed (`bench/retrieval.py --speed`, medians of 5):",
    ):
        assert is_fragment(Sentence(text, "Doc", 0, True)), text


def test_the_two_sentence_minimum_brings_back_no_repeat() -> None:
    """F6 (walk 57): a request and its longer re-send were both said: the repeat rule
    kept the longer, then "at least two sentences" added the shorter back."""
    short = "You: add a random hovering emoji bubble to the calculator page."
    long = (
        "You: add a random hovering emoji bubble to the calculator page, make it appear at "
        "random places and periodically."
    )
    said = summary_sentences(f"{short}\n{long}")
    assert len(said) == 1 and "periodically" in said[0], said


def test_a_code_mode_scripts_lines_are_no_summary() -> None:
    """F11 (walk 57): the JavaScript lines under ``Called exec_js`` were summaries."""
    text = (
        "Tool: Called exec_js\n"
        "Tool: const common = {workdir: '/srv/app'};\n"
        "Tool: let r = await tools.exec_command({cmd: 'ls', ...common});\n"
        "Bot: The service starts on port 8080 now."
    )
    said = [s.text for s in split_sentences(text)]
    assert not any("const " in s or "let r" in s for s in said), said


def test_a_lists_lead_in_is_said_once_and_open_work_goes_first() -> None:
    """F2 and F5 (walk 57): Where it stopped said a lead-in alone and again joined with
    its items (gemini-slate-router: "I have completely overhauled the dashboard app
    (`main.py`)." twice), and left out a closing "Not done yet:" list whose items have
    no path or number, whatever the budget."""
    from chunkscope.engine.recap.sections import _last_lines

    overhaul = (
        "I have completely overhauled the dashboard app (`main.py`):\n"
        "* **UI Polish:** Uses `Adw.Clamp` for a centred layout.\n"
        "* **Toggle Fix:** Replaced the custom switch.\n"
        "* **Blocklists:** Added an expander row that lists them.\n\n"
        "Please relaunch the app."
    )
    lines, _ = _last_lines([overhaul])
    assert sum("completely overhauled" in line for line in lines) == 1, lines
    assert lines[0].startswith("I have completely overhauled the dashboard app (`main.py`): "), (
        lines
    )
    open_work = (
        "All 42 tests pass and the redirect bug in auth/login.py is fixed.\n\n"
        "Not done yet:\n- The password reset flow for SSO users\n"
        "- Rate limiting on the login endpoint\n- CSRF tokens on the settings forms"
    )
    lines, _ = _last_lines([open_work])
    assert (
        "Not done yet: The password reset flow for SSO users; Rate limiting on the login "
        "endpoint; CSRF tokens on the settings forms."
    ) in lines, lines


def test_a_quoted_reason_naming_a_test_runner_is_no_check() -> None:
    """F3 (walk 57): ``bd close X --reason="... Vitest ..."`` was the Last check."""
    from chunkscope.engine.recap.sections import _is_check

    assert not _is_check('bd close spotter-fum.4 --reason="Added 9 Vitest tests"')
    assert not _is_check('git commit -m "run pytest in CI"')
    assert _is_check('bash -c "pytest -q"') and _is_check("mix test 2>&1")


def test_an_architects_plan_passed_on_to_the_editor_is_no_later_request() -> None:
    """F7 (walk 57): aider's architect mode hands its plan to the editor model as the
    next ``####`` message (bench/recap_sessions/aider-text2sql.md, lines 10066-10111):
    the plan was a ``Later:`` request of the user's."""
    from chunkscope.engine.recap.sections import extract_sections
    from tests.test_sections import bot, by_name, user

    plan = (
        "Make these precise changes so every backend test uses the db URL "
        "sqlite://./ecommerce.db.\n\n1) backend/tests/conftest.py\n- Update the fixture."
    )
    msgs = [
        user("Ensure that all backend tests run with the db_path sqlite://./ecommerce.db."),
        bot(plan),
        user(plan),
        bot("Done: the fixture returns the URL now."),
    ]
    task = by_name(extract_sections(msgs, []))["task"]
    assert not any("Make these precise changes" in line for line in task), task


def test_a_folded_commands_continuation_is_joined_as_the_shell_does() -> None:
    """F13 (walk 57): a fenced ``curl URL \\`` / ``-H "..."`` folded into inline code kept
    its backslash: copied from the recap, `` -H`` was one argument."""
    from chunkscope.engine.recap.sections import _inline_fences

    text = (
        "Run:\n\n```bash\ncurl https://api.example.org/limits \\\n"
        '  -H "Authorization: Bearer $KEY"\n```'
    )
    folded = _inline_fences(text)
    assert '`curl https://api.example.org/limits -H "Authorization: Bearer $KEY"`' in folded
    assert "\\" not in folded, folded


def test_a_wide_stop_keeps_its_closers_and_its_bold() -> None:
    """F15 (walk 57, cc-posthog.jsonl): after the full-width stop, a closing ``)`` was
    cut off its sentence, and a stop inside bold split the bold in two."""
    text = (
        "Bot: 請重新 toggle 開關一次。(可以試試**用無痕視窗**打開那個 URL — 看會不會 "
        "login redirect。)\n\n下一步是部署。"
    )
    said = [s.text for s in split_sentences(text)]
    assert said[1].endswith("login redirect。)"), said
    said = [s.text for s in split_sentences("Bot: 我把 **訊號過濾。改成對 PR** 做。下一步。")]
    assert said == ["我把 **訊號過濾。改成對 PR** 做。", "下一步。"], said


def test_a_long_snake_case_line_is_read_at_once() -> None:
    """The call pattern of `_CODE_LINE` (a dotted or snake_case name, then ``(``) nested
    its quantifiers: a tool line of many ``_word`` parts and no bracket took exponential
    time (spotter-ae4a77f8's recap never ended). Such lines read as any other."""
    line = "Tool: " + "_".join(["part"] * 60) + " tail"
    assert [s.text for s in split_sentences(line)] == [line.removeprefix("Tool: ")]
    said = [s.text for s in split_sentences("Bot: " + "a_b" * 200 + " is the key we read.")]
    assert len(said) == 1
