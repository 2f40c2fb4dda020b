"""What a user's message is to the session: a new request, a follow-up, or no request.

The recap (`engine.recap.sections`) keeps the user's requests that say something; the topic
segmenter (`engine.segment.segmenter`) weighs a user's message as the start of a topic by what it
is (`topic_start`):

- **no request** (0): a background agent's report (``<task-notification>``), an
  interruption, tool output pasted by the tool, "ok" / "continue", a slash command that
  manages the tool (`TOOL_COMMANDS`: aider's ``/model``, ``/add``, ``/commit``, or typed
  short, ``/ad``; Claude Code's ``/compact``, ``/plugin``): it belongs to the topic in
  course. A slash command of the user's own (``/publish-session``, ``/review``) is a
  request. The segmenter adds the agent's answer passed on as a user message
  (`echoes`: aider's architect mode);
- **a follow-up** (`FOLLOW_UP`): a message that continues the current goal: short
  ("try again", "did you push?"), opening on what was just done ("That's almost right",
  "Also ...", "Undo the last change", "still ..."), reporting an error in it ("I'm
  getting ...", "Nothing happens when ...", "There are still issues ...", "... which is
  wrong", a pasted traceback), or answering the agent's questions ("1: ...");
- **a request** (1): anything else, e.g. "Now let's implement the realtime aspect",
  "Create a TypeScript frontend ...", "/code add a dark mode switch".

These are cues in the text, in English; a message they miss counts as a request, as
every user message did before. The text's content still decides with them: a cut needs
the block similarity to dip too (`engine.segment.segmenter`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from chunkscope.engine.read.commands import COMMAND, command_request, tool_command
from chunkscope.engine.textutil import UNSPACED_SCRIPT
from chunkscope.engine.toolcall import PLAN_STEP

__all__ = [
    "FOLLOW_UP",
    "LANDED",
    "LANDED_STRETCH",
    "PHASE",
    "PHASE_STRETCH",
    "PLAN",
    "PLAN_SHARE",
    "PLAN_STRETCH",
    "MessageKind",
    "Phase",
    "clean_request",
    "echoes",
    "fixes_again",
    "is_follow_up",
    "is_request",
    "is_tool_call",
    "lands_work",
    "message_kind",
    "next_phase",
    "phase_cue",
    "plan_step",
    "repeats",
    "request_text",
    "topic_start",
    "words",
]

MessageKind = Literal["request", "follow_up", "none"]

#: How strongly a follow-up starts a topic, against 1 for a new request.
FOLLOW_UP = 0.0
#: A message of at most this many words is a follow-up ("try again", "make it bigger").
SHORT_WORDS = 5
#: Error cues count in this many first characters of a message (a report opens on them).
ERROR_CHARS = 160
#: A request sharing this share of its words with one of the last few is a retry.
REPEAT_SHARE = 0.4
#: How many earlier requests a retry is looked for in: the one in course (a return to
#: an older subject after another is a new topic).
REPEAT_WINDOW = 1

_TAGGED = re.compile(
    r"<(system-reminder|environment_context|user_instructions|ide_[a-z_]+|"
    r"local-command-[a-z]+|command-message|command-name|command-args)\b[^>]*>.*?</\1>",
    re.S,
)
#: Claude Code's mark of a request the user stopped (the Codex reader writes the same)
INTERRUPTED = re.compile(r"\[Request interrupted by user[^\]]*\]")
_TRIVIAL = re.compile(
    r"\A\W*(?:please\W+)?(?:ok(?:ay)?|yes|yep|y|no|sure|go(?: on| ahead)?|continue|proceed"
    r"|thanks?(?: you)?|ty|lgtm|done|next|great|perfect|cool|nice|do it|keep going|carry on)"
    r"(?:\W+please)?\W*\Z",  # with a please either side ("proceed please": walk 54, F2)
    re.I,
)
#: A message the tool writes in the user's place: Claude Code's notifications and ``!``
#: shell echoes, and a command's output handed back as a user message (an older text-only
#: mini-swe-agent trajectory's ``<returncode>0</returncode>``, SWE-agent's observation).
_MACHINE = re.compile(
    r"\A\s*<(?:(?:task-notification|bash-input|bash-stdout|bash-stderr)\b|"
    r"(?:returncode|tool_response|observation)>)"
    r"|\A! \S"  # Claude Code's bash mode as its reader gives it (``! git status``)
    # Claude Code's summary of a compacted conversation, in an export that lost the
    # record's isCompactSummary flag (a role/text copy of a session: walk 53)
    r"|\A\s*This session is being continued from a previous conversation that ran out of"
    r" context\b"
)
#: Another hook's message in the user's place: Claude Code's "Stop hook feedback:",
#: "PreToolUse:Bash hook error:", "... operation blocked by hook", a prompt hook's output
_HOOK_MESSAGE = re.compile(
    r"\A\s*(?:<user-prompt-submit-hook>|[\w:.*-]*\s*hook (?:feedback|error|blocking error|"
    r"returned blocking error|success)\b|\w+ operation blocked by hook|"
    r"\[[^\]\n]*\]:\s*#?\s*\w[^\n]{0,60}\bhook\b)",
    re.I,
)
_OPENS_ON_WHAT_WAS_DONE = re.compile(
    r"\A\W*(?:that'?s|that is|that was|this is|this was|it'?s|it is|it does|it doesn'?t|"
    r"it still|still|also|but|ok(?:ay)?\b|yes|yeah|no\b|nope|undo|revert|roll ?back|"
    r"try (?:again|it)|again|same|please continue|continue|instead|why\b|what about|"
    r"and\b|great|thanks|thank you|looks|almost|better|not quite|hmm|wait|actually|"
    r"close\b|nearly|good\b|perfect|nice\b|works|it works|\(?\d+[.:)]\s|"
    r"(?:please |can you |help me )?(?:fix|debug)\b)",
    re.I,
)
_REFERS_BACK = re.compile(
    r"\b(?:the last change|last change|you just|your last|the previous (?:change|version)|"
    r"go back to|undo|revert|try again|as before|fix (?:that|it|this)|"
    r"(?:don'?t|do not) want it to)\b",
    re.I,
)
_ERROR = re.compile(
    r"\b(?:error|exception|traceback|doesn'?t (?:seem to )?work|does not work|not working|"
    r"isn'?t working|nothing (?:happens|changed)|i'?m (?:still )?getting|i (?:still )?get\b|"
    r"i have this|still (?:getting|see|doesn'?t|not|issues?|errors?|fail\w*|broken|wrong)|"
    r"there (?:is|are) still|which (?:is|are|looks|seems) wrong|can'?t see|cannot see|"
    r"file \"[^\"\n]+\", line \d+|"  # a Python traceback's frame, pasted
    r"didn'?t (?:work|change|fire|write|create)|doesn'?t (?:seem|show|appear)|"
    r"not (?:displaying|showing)|"
    # what was made, said not to behave: "the toggle doesn't stick", "it didn't flip"
    r"(?:\bit|\bthat|\bthis|\bthe \w+) (?:still )?(?:doesn'?t|didn'?t|won'?t|does not|"
    r"did not|will not) \w+)|"
    r"\A\W*(?:warn(?:ing)?|err(?:or)?|fatal)\b",  # a line of output pasted: "[WARN ..."
    re.I,
)


#: How strongly the agent's first message after its work landed (`lands_work`) starts a
#: topic: it turns to the next task of its plan.
LANDED = 1.2
#: ... when at least this many characters of the session follow it before more work
#: lands (or the session ends): a task, not the wrap-up of the last one.
LANDED_STRETCH = 4000
_LANDED = re.compile(
    r"(?m)^\s*\[[^\]\s]+(?: \(root-commit\))? [0-9a-f]{7,40}\] "  # git commit's summary
    r"|\b[0-9a-f]{7,40}\.\.[0-9a-f]{7,40}\s+\S+\s+->\s+\S+"  # git push
    r"|\* \[new branch\]\s+\S+\s+->"
    r"|/pull/\d+\b"  # a pull request made
)
_TOOL_CALL = re.compile(r"\A[\w.:-]+\(\{")


Phase = Literal["fix", "verify"]

#: How strongly the agent's own announcement of its task's next phase starts a topic
#: (`phase_cue`): after investigating, "Now let me fix the issue"; after the fix, "Now let
#: me test if the fix works". An agent working through one task alone, with no commit
#: between its phases, gives no other sign of them. As strong as landed work (`LANDED`):
#: where the words change little between phases, 1 left the fix uncut.
PHASE = 1.2
#: ... when at least this many characters of the task come before it (since the user's
#: request, or since the fix was announced): a phase, not a first step.
PHASE_STRETCH = 3000
#: Who announces: "let me", "I need to", ... and a word that makes it the next step
#: ("now", "first"), before it or right after it ("Now let me", "let me first").
_ANNOUNCE = (
    r"(?:\bnow,?\s+|\bfirst,?\s+|\bactually,?\s+)(?:{who})\s+(?:go ahead and\s+)?(?:{what})"
    r"|\b(?:{who})\s+(?:now|first)\s+(?:{what})"
)
_WHO = r"let me|let's|let us|i'll|i will|i need to|i'm going to|i am going to|we need to"
#: The change announced: making or applying the fix or the changes, fixing the issue (or
#: bug, problem), editing or modifying the code (not a test or reproduction script).
_CHANGE = (
    r"(?:make|apply|implement|write)\s+(?:the|a|my|our|this|that|these|those)\s+(?:\w+\s+)?"
    r"(?:fix|changes?|modifications?)\b"
    r"|fix\s+(?:the|this|that)\s+(?:\w+\s+)?(?:issue|bug|problem)\b"
    r"|(?:edit|modify)\s+(?:the\s+)?(?!\S*\s*(?:test|script|reproduc))\S"
)
_FIX_PHASE = re.compile(_ANNOUNCE.format(who=_WHO, what=_CHANGE), re.I)
#: The check announced: verifying or testing the fix, that the changes (or "this") work.
_VERIFY_PHASE = re.compile(
    r"\b(?:verify|confirm|check|test|ensure|make sure)\s+(?:that\s+|if\s+|whether\s+)?"
    r"(?:(?:the|my|our)\s+fix\b|(?:the|my|our)\s+changes?\s+(?:\w+\s+)?work"
    r"|(?:this|it|everything)\s+(?:works|fixes)\b)",
    re.I,
)
#: A line that runs a command (`engine.toolcall`: a shell call shows as ``$ command``).
_COMMAND_LINE = re.compile(r"(?m)^\$ ")
#: What either pattern needs in a text to match in it (one of them, in any case).
_PHASE_NEEDS = ("fix", "change", "modif", "edit", "issue", "bug", "problem", "work")
#: ... and what each needs besides: who announces (`_FIX_PHASE`), the check (`_VERIFY_PHASE`).
_FIX_NEEDS = tuple(_WHO.split("|"))
_VERIFY_NEEDS = ("verify", "confirm", "check", "test", "ensure", "make sure")


def _may_hold(text: str, needles: tuple[str, ...]) -> bool:
    """False only when `text` holds none of `needles` (lowercase ASCII) in any case, so
    that a case-insensitive pattern needing one cannot match in it. A text beyond ASCII
    goes to the pattern (case folding there matches ``ſ`` to ``s``, ``K`` to ``k``)."""
    if not text.isascii():
        return True
    low = text.lower()
    return any(needle in low for needle in needles)


#: What `_REFERS_BACK` needs in a text to match in it (one of them, in any case).
_REFERS_BACK_NEEDS = (
    "last change", "you just", "your last", "the previous", "go back to", "undo", "revert",
    "try again", "as before", "fix that", "fix it", "fix this", "want it to",
)  # fmt: skip


def phase_cue(text: str) -> Phase | None:
    """Does the agent's message (prose, not a tool call) announce the next phase of its
    task: ``fix`` ("Now let me fix the issue", "Now I need to make the changes", "let me
    first apply the fix", "Now let me edit the RST class") or ``verify`` ("Now let me test
    if the fix works", "a test to verify the changes work")? Only its words count, in its
    first 400 characters: a command it runs (from a ``$ `` line on) says nothing. Which
    phase the announcement opens is for the caller to weigh (`engine.segment.segmenter`):
    only the first of each, in that order, after enough work."""
    head = _COMMAND_LINE.split(text[:400], 1)[0]  # its words, not a command it runs
    if not _may_hold(head, _PHASE_NEEDS):
        return None
    if _may_hold(head, _FIX_NEEDS) and _FIX_PHASE.search(head):
        return "fix"
    if _may_hold(head, _VERIFY_NEEDS) and _VERIFY_PHASE.search(head):
        return "verify"
    return None


#: The agent finding its fix wrong: "a better fix", "there's an issue with my patch", "my
#: fix breaks WHERE clauses", "the change didn't work".
_AGAIN = re.compile(
    r"\b(?:a|the)\s+better\s+(?:fix|approach|solution)\b"
    r"|\b(?:issue|problem|bug|mistake|flaw)\s+(?:with|in)\s+(?:my|our|the)\s+"
    r"(?:fix|patch|changes?|implementation)\b"
    r"|\b(?:my|our|the)\s+(?:fix|patch|changes?)\s+(?:breaks|broke|is\s+wrong|was\s+wrong|"
    r"is\s+incomplete|didn'?t\s+work|doesn'?t\s+work|(?:has|had)\s+(?:an?\s+)?(?:issue|problem|bug))",
    re.I,
)
#: What `_AGAIN` needs in a text to match in it (one of them, in any case).
_AGAIN_NEEDS = ("fix", "patch", "change", "approach", "solution", "implementation")


def fixes_again(text: str) -> bool:
    """Does the agent's message (its words, as `phase_cue` reads them) find the fix it made
    wrong and turn to fixing it again ("Now let me think about a better fix", "Wait,
    there's an issue with my patch", "My fix breaks WHERE clauses")?"""
    head = _COMMAND_LINE.split(text[:400], 1)[0]
    return _may_hold(head, _AGAIN_NEEDS) and _AGAIN.search(head) is not None


def next_phase(phase: Phase | None, text: str, thought: bool = False) -> tuple[Phase, int] | None:
    """The phase of its task the agent's message (prose, not a tool call) turns to from
    `phase` (None: the investigation), and how many characters the phase in course must
    have lasted for it to count; None if it turns to none. The fix after the
    investigation (`phase_cue`); its check after the fix, or after the investigation when
    the fix went unannounced ("Now let me test if this fixes the issue": it was made);
    the fix again once the fix or its check found it wrong (`fixes_again`). A fix
    announced again while fixing, or a check while checking, is the phase in course."""
    cue = phase_cue(text)
    if cue == "fix" and phase != "fix":
        return "fix", PHASE_STRETCH
    if cue == "verify" and phase == "fix":
        return "verify", PHASE_STRETCH // 3  # a check may follow its fix closely
    if cue == "verify" and phase is None and not thought:
        return "verify", PHASE_STRETCH
    if phase is not None and fixes_again(text):
        return "fix", PHASE_STRETCH
    return None


#: How strongly the agent's plan putting its next item in progress starts a topic
#: (`plan_step`: a ``TodoWrite``, ``update_plan`` or ``write_todos`` call whose item in
#: progress is another than the last one's, in the same request): it turns to the next
#: step of its own plan. As strong as landed work (`LANDED`).
PLAN = 1.2
#: ... when at least this many characters of the session follow it before the plan's
#: next item, the user's next request or the end: a phase, not a step of a minute.
PLAN_STRETCH = 4000
#: ... and at least this share of its request's characters (from the request to the next):
#: a phase of the task, not one of its many steps.
PLAN_SHARE = 1 / 3


def plan_step(text: str) -> str | None:
    """The item an agent's plan call puts in progress, as the call shows it
    (`engine.toolcall.plan_text`: ``TodoWrite 2/7 done; in progress: "Test the
    migration"``); None for any other text, or a plan with no item in progress."""
    if " done" not in text:
        return None  # what every plan call shows: "N/M done"
    found = PLAN_STEP.search(text)
    return found.group(1) if found else None


def lands_work(text: str) -> bool:
    """Does a tool's output show work landed: a commit made, a push, a pull request?"""
    if "[" not in text and ".." not in text and "/pull/" not in text:
        return False  # what every kind of landing shows: "[branch sha]", "a..b", "/pull/"
    return _LANDED.search(text) is not None


#: How many first characters (whitespace aside) of a user's message `echoes` compares.
ECHO_CHARS = 80


def _squeezed(text: str) -> str:
    # the squeezed opening of a prefix is a prefix of the whole text's: when it is long
    # enough, the rest of a long message need not be split
    head = " ".join(text[: 4 * ECHO_CHARS].split())
    if len(head) >= ECHO_CHARS:
        return head[:ECHO_CHARS]
    return " ".join(text.split())[:ECHO_CHARS]


def echoes(text: str, said: str) -> bool:
    """Does a user's message open as the agent's last message opened (`said`, its first
    paragraph)? Then the tool passed the agent's answer on as a message (aider's
    architect mode hands its plan to the editor model as the next ``####`` message): no
    request of the person's."""
    head = _squeezed(text)
    return len(head) >= 20 and head == _squeezed(said)[: len(head)]


def is_tool_call(text: str) -> bool:
    """Is an assistant message a tool call as the readers write it (``Bash({...})``)?"""
    return _TOOL_CALL.match(text) is not None


def clean_request(text: str) -> str:
    """A user's message without the tool's tagged blocks and interruption marks."""
    text = _TAGGED.sub(" ", text)
    text = INTERRUPTED.sub(" ", text)
    return text.strip()


#: Four characters of a script written without spaces between words (Han, kana).
_UNSPACED_WORDS = re.compile(f"[{UNSPACED_SCRIPT}]{{4}}")


def is_request(text: str) -> bool:
    """Does a (cleaned) user message ask something, rather than "ok", tool output, a
    bare slash command or boilerplate?"""
    if not text or _TRIVIAL.match(text) or _MACHINE.match(text) or _HOOK_MESSAGE.match(text):
        return False
    if text.startswith("/") and " " not in text.strip():
        return False  # a bare slash command (/clear, /compact)
    name = COMMAND.match(text)
    if name is not None and tool_command(name.group(1)):
        return False  # a command that manages the tool (aider's /add, /copy-context)
    if text.startswith(("Caveat:", "[image]", "[document]")) and len(text) < 200:
        return False
    # two words or more (the rest is not split); Chinese and Japanese put no space
    # between words: four of their characters are two words (``はい``, yes, is not)
    return len(text.split(None, 1)) >= 2 or _UNSPACED_WORDS.search(text) is not None


_WORD = re.compile(r"[a-z0-9_]{3,}")
_COMMON = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "that",
        "this",
        "you",
        "your",
        "are",
        "was",
        "were",
        "have",
        "has",
        "had",
        "not",
        "but",
        "can",
        "could",
        "would",
        "should",
        "will",
        "make",
        "add",
        "use",
        "using",
        "from",
        "into",
        "onto",
        "out",
        "all",
        "any",
        "some",
        "more",
        "also",
        "then",
        "than",
        "there",
        "here",
        "what",
        "when",
        "where",
        "which",
        "who",
        "how",
        "why",
        "its",
        "it's",
        "let's",
        "please",
        "want",
        "need",
        "now",
        "just",
        "like",
        "get",
        "got",
        "one",
        "two",
        "new",
        "file",
        "files",
        "code",
    ]
)


def words(text: str) -> frozenset[str]:
    """The distinct lowercase words of three characters or more of `text`, without the
    most common ones."""
    return frozenset(_WORD.findall(text.lower())) - _COMMON


def repeats(text: str, earlier: Sequence[frozenset[str]]) -> bool:
    """Does a request repeat one of the `earlier` ones (their `words`): at least
    `REPEAT_SHARE` of the words of the shorter of the two in common (a retry, after
    a model switch or a reset)?"""
    mine = words(text)
    for other in earlier:
        least = min(len(mine), len(other))
        if least and len(mine & other) >= REPEAT_SHARE * least:
            return True
    return False


def is_follow_up(text: str) -> bool:
    """Does a (cleaned) request continue the current goal rather than start another?
    (See the module docstring.)"""
    if len(text.split(None, SHORT_WORDS)) <= SHORT_WORDS:  # splits no further than it asks
        return True
    if _OPENS_ON_WHAT_WAS_DONE.match(text) or (
        _may_hold(text, _REFERS_BACK_NEEDS) and _REFERS_BACK.search(text)
    ):
        return True
    return _ERROR.search(text[:ERROR_CHARS]) is not None


def request_text(text: str) -> str | None:
    """The request a user's message makes, cleaned (after aider's ``/ask``, ``/code``),
    or None when it makes none (a report, an interruption, a command)."""
    cleaned = clean_request(text)
    if cleaned.startswith("/"):
        request = command_request(cleaned)
        if request is None or request == cleaned:
            # a command that manages the tool (/model, /add, /commit, /compact): None; one
            # of the user's own (/publish-session, /review): a task
            return request
        cleaned = request  # the words after aider's /ask, /code
    return cleaned if is_request(cleaned) else None


def message_kind(text: str, earlier: Sequence[frozenset[str]] = ()) -> MessageKind:
    """What a user's message is to the session: ``request``, ``follow_up`` or ``none``
    (see the module docstring); `earlier`: the `words` of the last requests, which a
    retry repeats."""
    cleaned = request_text(text)
    if cleaned is None:
        return "none"
    if cleaned.startswith("/"):
        return "request"  # a command of the user's own
    if is_follow_up(cleaned) or repeats(cleaned, earlier):
        return "follow_up"
    return "request"


def topic_start(text: str) -> float:
    """How strongly a user's message starts a topic: 1 for a new request, `FOLLOW_UP`
    for a follow-up, 0 for no request (see the module docstring)."""
    kind = message_kind(text)
    return 1.0 if kind == "request" else FOLLOW_UP if kind == "follow_up" else 0.0
