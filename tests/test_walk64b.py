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
