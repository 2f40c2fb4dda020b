"""Write the hostile-input corpus into a directory (deterministic; nothing is committed).

    python tests/hostile/make_corpus.py OUT_DIR

Every file is generated from a fixed seed, so two runs write identical bytes. The
corpus is shared by the command-line tests (`tests/test_hostile_cli.py`) and the
workbench tests: `make_corpus(dir)` returns ``{case name: path}``, and
`make_special(dir)` adds a directory and a FIFO (which cannot live in a repository).

`CASES` describes each file: what it exercises and whether it is a log or markdown.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections.abc import Callable
from pathlib import Path

SEED = 20260213
TS = "2026-02-13T09:00:{:02d}"


def _msg(role: str, content: object, second: int = 0, **extra: object) -> bytes:
    obj: dict[str, object] = {"role": role, "content": content, "timestamp": TS.format(second)}
    obj.update(extra)
    return json.dumps(obj).encode() + b"\n"


def _good(n: int = 3) -> bytes:
    """A few well-formed turns, so that a file has something to chunk besides its damage."""
    out = b""
    for i in range(n):
        role = "user" if i % 2 == 0 else "assistant"
        text = f"Turn {i}: the cache must survive restarts and keep every vector it computed."
        out += _msg(role, text, i)
    return out


# --------------------------------------------------------------------------- the cases


def random_bytes(rng: random.Random) -> bytes:
    return bytes(rng.getrandbits(8) for _ in range(64 * 1024))


def invalid_utf8(rng: random.Random) -> bytes:
    bad = b'{"role": "user", "content": "caf\xe9 \xff\xfe broken \xc3\x28 bytes"}\n'
    lone = b'{"role": "assistant", "content": "half a pair \\ud800 here and \\udfff there"}\n'
    return _good(2) + bad + lone + b"\xff\xfe\xfd\n" + _good(2)


def bom_crlf(rng: random.Random) -> bytes:
    body = _good(4).replace(b"\n", b"\r\n")
    return b"\xef\xbb\xbf" + body + b"\r\n\r\n"


def non_object_lines(rng: random.Random) -> bytes:
    lines = [b"[1, 2, 3]", b"42", b"-1.5e308", b'"just a string"', b"null", b"true", b"{}"]
    lines += [b'{"role": null}', b'{"role": 7, "content": "x"}', b'{"content": "no role"}']
    lines += [b'{"role": "user", "content": "bad time", "timestamp": 12}']
    lines += [b'{"role": "user", "content": "bad time", "timestamp": "yesterday"}']
    lines += [b'{"role": "user", "content": {"nested": ["object", 1, null]}}']
    lines += [b'{"role": "user", "content": [{"type": "image"}, 5, null, {"text": 3}]}']
    lines += [b'{"role": "user", "content": 12345}', b"{not json", b"}{", b"\t  "]
    return _good(1) + b"\n".join(lines) + b"\n" + _good(2)


def only_garbage(rng: random.Random) -> bytes:
    """No line at all is a message: nothing to chunk, nothing to recap."""
    return b'[]\n42\nnull\n"s"\n{bad\n'


def deep_nesting(rng: random.Random) -> bytes:
    depth = 100_000
    arrays = b"[" * depth + b"]" * depth
    objects = b'{"a":' * depth + b"1" + b"}" * depth
    inside = b'{"role": "user", "content": ' + b"[" * depth + b"]" * depth + b"}"
    return _good(1) + arrays + b"\n" + objects + b"\n" + inside + b"\n" + _good(1)


def huge_line(rng: random.Random) -> bytes:
    words = ["cache", "vector", "sqlite", "merge", "chunk", "summary", "recap", "token"]
    text = " ".join(rng.choice(words) for _ in range(800_000))[: 5 * 1024 * 1024]
    return _good(1) + _msg("assistant", text, 5) + _good(1)


def nul_bytes(rng: random.Random) -> bytes:
    raw_nul = b'{"role": "user", "content": "raw \x00 nul"}\n'
    escaped = _msg("assistant", "escaped \x00 nul and \x01\x02 controls", 3)
    return _good(1) + raw_nul + b"\x00\x00\x00\n" + escaped + _good(1)


def tool_calls(rng: random.Random) -> bytes:
    calls: list[object] = [
        {"type": "function", "function": {"name": "read", "arguments": '{"path": "a.py"}'}},
        {"id": "c2", "type": "function", "function": {"arguments": '{"path": "b.py"}'}},
        {"id": "c3", "type": "function", "function": {"name": "bash"}},
        {"id": "c4", "type": "function", "function": {"name": "edit", "arguments": "{not json"}},
        {"id": "c5", "type": "function", "function": {"name": "write", "arguments": "[1, 2]"}},
        {"id": "c6", "type": "function", "function": None},
        {"id": "c7"},
        None,
        "a string",
        {"id": 8, "function": {"name": 9, "arguments": {"already": "parsed"}}},
    ]
    out = _msg("user", "Please read the files and run the tests.", 0)
    out += _msg("assistant", "", 1, tool_calls=calls, reasoning="Reading first.")
    for call_id in (None, "c2", "c3", "c4", "c5", "unknown", 8):
        out += _msg("tool", None, 2, tool_call_id=call_id)
    out += _msg("tool", [{"type": "text", "text": None}], 3, tool_call_id="c2")
    out += _msg("assistant", None, 4, tool_calls="not a list")
    out += _msg("assistant", "All done; the tests passed.", 5, tool_calls=[])
    return out


def markup_escapes(rng: random.Random) -> bytes:
    text = (
        "\x1b[31mred\x1b[0m \x1b]0;title\x07 \x1b[2J\x1b[H cleared \x9b31m C1 \x07 bell "
        "[bold]markup[/] [link=file:///etc/passwd]x[/link] \r carriage. Caf\u00e9 done \U0001f389"
    )
    return _msg("tool", text, 1) + _msg("assistant", text + "\n\n" + text, 2)


def md_unclosed_fence(rng: random.Random) -> bytes:
    lines = ["# Title", "", "Intro paragraph that is long enough to be a chunk.", "", "```python"]
    lines += [f"# not a heading {i}" for i in range(50)]
    lines += ["", "## still inside the fence", "print('never closed')"]
    return "\n".join(lines).encode()


def md_many_headings(rng: random.Random) -> bytes:
    return "".join(
        f"{'#' * (i % 6 + 1)} Heading {i}\n\nBody {i}.\n\n" for i in range(20_000)
    ).encode()


def md_binaryish(rng: random.Random) -> bytes:
    """A .md file of control bytes, NULs, a BOM, CRLF and invalid UTF-8."""
    return b"\xef\xbb\xbf# T\x00itle\r\n\r\n\xff\xfe body \x1b[2J\r\n```\r\n# x\r\n" + bytes(
        range(32)
    )


def empty(rng: random.Random) -> bytes:
    return b""


def blank_lines(rng: random.Random) -> bytes:
    return b"\n\r\n   \n\t\n" * 1000


Generator = Callable[[random.Random], bytes]

#: name -> (file name, generator, what it is)
CASES: dict[str, tuple[str, Generator, str]] = {
    "random_bytes": ("random_bytes.jsonl", random_bytes, "64 KiB of random bytes"),
    "random_bytes_sniffed": ("random_bytes.log", random_bytes, "random bytes, sniffed format"),
    "invalid_utf8": ("invalid_utf8.jsonl", invalid_utf8, "invalid UTF-8, lone surrogates"),
    "bom_crlf": ("bom_crlf.jsonl", bom_crlf, "UTF-8 BOM and CRLF line endings"),
    "non_object_lines": ("non_object.jsonl", non_object_lines, "arrays, numbers, null, bad role"),
    "only_garbage": ("only_garbage.jsonl", only_garbage, "no valid message at all"),
    "deep_nesting": ("deep.jsonl", deep_nesting, "JSON nested 100,000 deep"),
    "huge_line": ("huge_line.jsonl", huge_line, "a 5 MB single line"),
    "nul_bytes": ("nul.jsonl", nul_bytes, "raw and escaped NUL bytes"),
    "tool_calls": ("tool_calls.jsonl", tool_calls, "tool calls missing ids/names/arguments"),
    "markup_escapes": ("escapes.jsonl", markup_escapes, "terminal escapes and markup in text"),
    "md_unclosed_fence": ("unclosed_fence.md", md_unclosed_fence, "markdown, unclosed fence"),
    "md_many_headings": ("headings.md", md_many_headings, "markdown with 20,000 headings"),
    "md_binaryish": ("binaryish.md", md_binaryish, "markdown of control bytes"),
    "empty": ("empty.jsonl", empty, "an empty file"),
    "blank_lines": ("blank.jsonl", blank_lines, "only blank lines"),
}


def make_corpus(directory: str | os.PathLike[str]) -> dict[str, Path]:
    """Write every case into `directory` (created if needed); ``{case name: path}``."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    paths: dict[str, Path] = {}
    for name, (filename, generate, _what) in CASES.items():
        rng = random.Random(f"{SEED}:{name}")
        path = out / filename
        path.write_bytes(generate(rng))
        paths[name] = path
    return paths


def make_special(directory: str | os.PathLike[str]) -> dict[str, Path]:
    """A directory and a FIFO to pass as "the file" (``{"directory": ..., "fifo": ...}``)."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    folder = out / "a_directory.jsonl"
    folder.mkdir(exist_ok=True)
    paths = {"directory": folder}
    if hasattr(os, "mkfifo"):
        fifo = out / "a_fifo.jsonl"
        if not fifo.exists():
            os.mkfifo(fifo)
        paths["fifo"] = fifo
    return paths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="directory to write the corpus into")
    parser.add_argument("--special", action="store_true", help="also a directory and a FIFO")
    args = parser.parse_args(argv)
    paths = make_corpus(args.out)
    if args.special:
        paths.update(make_special(args.out))
    for name, path in paths.items():
        size = path.stat().st_size if path.is_file() else 0
        print(f"{name:22} {size:>10}  {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
