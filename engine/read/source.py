"""The pieces every reader is made of: a parsed `Source`, its problems, reading a
file's lines (gzip looked through), JSON lines, timestamps, turns of the seed's
messages, the seed's JSONL and markdown readers, and whether a source is usable.

`engine.read.parse` is the entry point (`load`, the seed's `parse_turns` /
`parse_turns_md`); `engine.read.formats` builds every input format from these pieces.
Lenient mode (the default) skips a bad line and records it; strict mode raises
`ParseError` at the first one.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, NamedTuple

from chunkscope.engine.errors import NotText, ParseError, SourceError
from chunkscope.engine.model import Progress, Turn, gc_paused
from chunkscope.engine.read.headings import ATX, fence_after, find_headings
from chunkscope.engine.read.headings import FENCE as FENCE
from chunkscope.engine.read.headings import FENCE_LINES as FENCE_LINES
from chunkscope.engine.textutil import counted
from chunkscope.engine.toolcall import calls_text as calls_text

Kind = Literal["jsonl", "markdown"]

ROLE_NAMES = {"user": "You", "assistant": "Bot", "tool": "Tool"}
THINKING_ROLE = "Bot thinking"
DOC_ROLE = "Doc"

JSONL_SUFFIXES = {".jsonl", ".ndjson"}
MARKDOWN_SUFFIXES = {".md", ".markdown"}


@dataclass(frozen=True, slots=True)
class Problem:
    """A line the parser skipped (or, for warnings, read with a caveat)."""

    line: int
    reason: str

    def as_dict(self) -> dict[str, Any]:
        """The problem as JSON values."""
        return {"line": self.line, "reason": self.reason}


class PartEnds(NamedTuple):
    """The last line of parts of a JSON document message's text, when they end before
    the message's text does (`Message.end_line`, which takes in its tool calls): its
    reasoning (the ``Bot thinking`` turn) and its content without the calls (a turn
    whose calls are collapsed into turns of their own). None: not known."""

    thinking: int | None = None
    content: int | None = None


#: No part's end known: a message's turns end where the message does.
NO_PART_ENDS = PartEnds()


class Message(dict[str, Any]):
    """One decoded log line: the JSON object, plus the 1-based line it came from (and,
    for a message of a JSON document spanning several lines, the last line of its text:
    `Turn.end_line`; for a message whose text is the file's lines, as an aider chat's,
    the first and last of them: `line` and `last_line`, as its turns say, so a collapsed
    turn's paragraphs keep their own lines)."""

    line: int
    end_line: int | None
    last_line: int | None
    part_ends: PartEnds
    #: Where each record of a message joined from several starts (`Turn.pieces`).
    pieces: tuple[tuple[int, int], ...] | None
    #: Whether its reader gave its texts with no paragraph of whitespace alone
    #: (`words_only`, `message_turns`' `tidy`): collapsing tool calls says them so too.
    tidy: bool

    def __init__(
        self,
        data: dict[str, Any],
        line: int,
        end_line: int | None = None,
        last_line: int | None = None,
        part_ends: PartEnds = NO_PART_ENDS,
        *,
        tidy: bool = False,
        pieces: tuple[tuple[int, int], ...] | None = None,
    ) -> None:
        super().__init__(data)
        self.line = line
        self.end_line = end_line
        self.last_line = last_line
        self.part_ends = part_ends
        self.tidy = tidy
        self.pieces = pieces


@dataclass(slots=True)
class Source:
    """A parsed file: its turns (and, for logs, its messages) plus what went wrong."""

    path: str
    kind: Kind
    turns: list[Turn]
    messages: list[Message] = field(default_factory=list)
    skipped: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    size_bytes: int = 0
    #: Non-blank lines read as records (a log's lines; 0 for markdown).
    records: int = 0
    #: The input format it was read as (`engine.read.formats`), e.g. "claude-code".
    format: str = ""
    #: Notes on the whole file (records of kinds not read, a session chosen, ...).
    notes: list[str] = field(default_factory=list)
    #: For a file holding several sessions: (index, title) of each, newest first.
    sessions: list[tuple[int, str]] = field(default_factory=list)
    #: Records read; with `not_read` (reason: count) and `skipped`, every record of
    #: the file: ``read + sum(not_read.values()) + len(skipped) == records``.
    read: int = 0
    not_read: dict[str, int] = field(default_factory=dict)
    #: Parts of records read that were left out (encrypted blocks, system reminders).
    stripped: dict[str, int] = field(default_factory=dict)
    #: How the file holds its records: ``jsonl`` (one a line), ``json`` (one document) or
    #: ``markdown`` (an aider chat history, a document); "": as `kind` says.
    container: str = ""
    #: What the file is, in words, when its reader knows better than its format's name
    #: (``mini-swe-agent trajectory``, ``aider chat history``); "": the format's name.
    label: str = ""

    @property
    def file_container(self) -> str:
        """``jsonl``, ``json`` or ``markdown``: how the file holds its records."""
        return self.container or self.kind

    def reading(self) -> dict[str, Any]:
        """What of the file was read, for a JSON output: ``records``, ``read``,
        ``not_read`` and ``stripped``."""
        return {
            "records": self.records,
            "read": self.read,
            "not_read": self.not_read,
            "stripped": self.stripped,
        }

    def accounting(self) -> str:
        """One line on what was not read (empty when everything was): ``not read: 12
        progress records, 3 file-history snapshots; left out of records read: 4
        system-reminder blocks``."""
        parts = []
        if self.not_read:
            parts.append("not read: " + ", ".join(counted(n, k) for k, n in self.not_read.items()))
        if self.stripped:
            parts.append(
                "left out of records read: "
                + ", ".join(counted(n, k) for k, n in self.stripped.items())
            )
        return "; ".join(parts)

    def warning_lines(self, path: str | None = None, shown: int = 3) -> list[str]:
        """The reader's warnings as every command and view says them, ``path:line:
        reason`` (``notes.md:3: invalid UTF-8 at byte 10, decoded with replacement``),
        the first `shown` of them and a count of the rest; `path` names the file in place
        of `self.path` (a report's page gives its name only)."""
        name = self.path if path is None else path
        lines = [f"{name}:{w.line}: {w.reason}" for w in self.warnings[:shown]]
        if len(self.warnings) > shown:
            lines.append(f"{name}: {counted(len(self.warnings) - shown, 'more warnings')}")
        return lines

    @property
    def kind_label(self) -> str:
        """``jsonl`` or ``markdown``; another agent's file as what it is and how it holds
        its records: ``claude-code (jsonl)``, ``gemini-cli (json)``, ``mini-swe-agent
        trajectory (json)``, ``aider chat history (markdown)``."""
        if self.format in ("", "seed-jsonl", "markdown"):
            return self.kind
        return f"{self.label or self.format} ({self.file_container})"

    @property
    def kind_short(self) -> str:
        """`kind_label` where the room is short (a narrow header): the tool's name alone,
        ``mini-swe-agent``, ``aider``, ``claude-code``; a generic trajectory's format."""
        if self.format in ("", "seed-jsonl", "markdown"):
            return self.kind
        words = self.label.split()
        if len(words) > 1 and words[0] != "agent":
            return words[0]
        return self.format

    @property
    def turn_word(self) -> str:
        """What a turn is called when counted: a document's turns are its sections."""
        return "section" if self.kind == "markdown" else "turn"

    @property
    def part_word(self) -> str:
        """What a chunk's parts are called when counted: a session's chunk holds turns,
        a document's holds paragraphs (the pieces its sections were split into)."""
        return "paragraph" if self.kind == "markdown" else "turn"

    @property
    def has_clock(self) -> bool:
        """Do the turns carry the time they were said? A document's turns all carry
        the file's date only, so its chunks have no time of day to show."""
        return self.kind != "markdown"

    @property
    def mostly_skipped(self) -> bool:
        """More than half of the records were skipped."""
        return bool(self.records) and 2 * len(self.skipped) > self.records


# --------------------------------------------------------------------------- files


#: What a path that is neither a file nor a folder is said to be.
NOT_REGULAR = "not a regular file (a FIFO, socket or device)"


def _check_regular_file(path: Path) -> os.stat_result:
    try:
        st = path.stat()
    except FileNotFoundError:
        raise SourceError(path, "no such file") from None
    except PermissionError:
        raise SourceError(path, "permission denied") from None
    except OSError as e:
        raise SourceError(path, e.strerror or str(e)) from None
    if stat.S_ISDIR(st.st_mode):
        raise SourceError(path, "is a directory, not a file")
    if not stat.S_ISREG(st.st_mode):
        raise SourceError(path, NOT_REGULAR)
    return st


def read_side_file(path: str | Path) -> bytes:
    """The bytes of a side file (a gold, query, memories, snapshot, settings or config
    file), as `Path.read_bytes` gives them and raises for it, but an `OSError` whose
    `strerror` is `NOT_REGULAR` for what is neither a file nor a folder: a FIFO's open
    waited for a writer for ever and a device (``/dev/zero``) was read until memory ran
    out (walk 35, F3)."""
    p = Path(path)
    mode = p.stat().st_mode
    if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        raise OSError(errno.EINVAL, NOT_REGULAR, str(p))
    return p.read_bytes()


GZIP_MAGIC = b"\x1f\x8b"


def _open_binary(path: Path) -> Any:
    """The file's bytes; a gzip-compressed file is decompressed as it is read."""
    try:
        fh = path.open("rb")
    except PermissionError:
        raise SourceError(path, "permission denied") from None
    except OSError as e:
        raise SourceError(path, e.strerror or str(e)) from None
    if fh.read(2) != GZIP_MAGIC:
        fh.seek(0)
        return fh
    import gzip
    import zlib

    fh.seek(0)
    gz = gzip.GzipFile(fileobj=fh, mode="rb")
    try:
        gz.read(1)
        gz.seek(0)
    except (OSError, EOFError, zlib.error):
        fh.seek(0)  # not gzip after all (or empty): the bytes are read as they are
        return fh
    return gz


def _raw_position(fh: Any) -> int:
    """Bytes of the file read so far (of the compressed file, for gzip)."""
    inner = getattr(fh, "fileobj", None)
    try:
        return int((inner or fh).tell())
    except (OSError, ValueError):
        return 0


#: How much of a file (decompressed) is looked at to find its format and whether it is
#: text at all.
HEAD_BYTES = 1 << 16


#: The byte order mark a UTF-8 file may start with (Windows editors, Python's
#: ``utf-8-sig``): not part of the file's first line, wherever that line is read.
BOM = "\ufeff"


def gunzip_readable(data: bytes) -> bytes:
    """What gzip `data` decompresses to as the readers read it: every whole member, and
    of a stream cut short what came out before the cut; bytes after the stream that are
    no gzip are left out (walk 31, F1: such a log was dated by its file's time, so
    `--latest` took it for the newest session). `zlib.error` when nothing decompresses."""
    out: list[bytes] = []
    while data:
        member = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            out.append(member.decompress(data))
        except zlib.error:
            if out:
                break  # a damaged member after whole ones: what came before is read
            raise
        data = member.unused_data
        if not member.eof or not data.startswith(GZIP_MAGIC):
            break  # cut short, or bytes after the stream: no member of it
    return b"".join(out)


def head_text(head: bytes) -> str:
    """A file's first bytes (`read_head`) as text: invalid UTF-8 replaced, without a
    leading `BOM` (its first line then parses as the readers read it)."""
    return head.decode("utf-8", errors="replace").removeprefix(BOM)


#: How far into a gzip file its head is looked for (a header field may be long).
GZIP_HEAD_LIMIT = 64 * HEAD_BYTES


def read_head(path: Path, size: int = HEAD_BYTES) -> bytes:
    """The first `size` bytes of a file, decompressed when it is gzip.

    A gzip file is read on until it gives `size` bytes or ends (its header may be longer
    than `size`: walk 20, F3). One that gives nothing, cut short or not gzip after all,
    is judged by its own bytes; an empty file compressed stays empty."""
    with path.open("rb") as fh:
        raw = fh.read(size)
        if not raw.startswith(GZIP_MAGIC):
            return raw
        unpack = zlib.decompressobj(16 + zlib.MAX_WBITS)
        out, data, read = b"", raw, len(raw)
        try:
            while True:
                out += unpack.decompress(data, size - len(out))
                data = unpack.unconsumed_tail
                if len(out) >= size or unpack.eof:
                    break
                if not data:
                    if read >= GZIP_HEAD_LIMIT:
                        break
                    data = fh.read(HEAD_BYTES)
                    read += len(data)
                    if not data:
                        break
        except zlib.error:
            return raw  # not gzip after all: its bytes are read as they are
    return out if out or unpack.eof else raw


#: Control characters a text file may hold (tab, line breaks, form feed, backspace, ESC).
_TEXT_CONTROLS = frozenset("\t\n\r\f\v\b\x1b")
#: Of the characters looked at, more than this share not text, with a NUL among them,
#: is a binary file; more than `_BINARY_SHARE_ALONE` is one even without a NUL.
_BINARY_SHARE = 0.10
_BINARY_SHARE_ALONE = 0.30


#: Files of a kind chunkscope knows by their first bytes and reads none of: what each
#: is (the readers say "which chunkscope does not read"; side files, the server's check
#: and a folder's listing name them the same way).
FILE_KINDS: tuple[tuple[bytes, str], ...] = (
    (b"PK\x03\x04", "a zip archive (a ChatGPT export? unzip it and open conversations.json)"),
    (b"SQLite format 3\x00", "a SQLite database"),
    (b"%PDF-", "a PDF document"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"!<arch>\n", "an ar archive (a static library, a .deb)"),
    # data other compressors wrote (a log compressed so): what to decompress it with
    *(
        (b"BZh%d1AY&SY" % n, "bzip2-compressed data (decompress it first: bunzip2 -k)")
        for n in range(1, 10)
    ),
    (b"\xfd7zXZ\x00", "xz-compressed data (decompress it first: unxz -k)"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed data (decompress it first: unzstd)"),
    (b"\x5d\x00\x00", "lzma-compressed data (decompress it first: unlzma -k)"),  # .lzma, not xz
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive (unpack it first)"),
)


#: An SVG image: text, but an image (walk 61, F6: a docs folder's logo.svg was read as a
#: markdown document): its ``<svg`` root first, after an XML declaration, comments and a
#: doctype if any.
_SVG = re.compile(
    rb"(?:\xef\xbb\xbf)?\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*|<!DOCTYPE[^>]*>\s*)*<svg[\s>/]",
    re.S,
)


def file_kind(head: bytes) -> str | None:
    """What a file that starts with `head` is, when it is of a kind chunkscope knows and
    reads none of (`FILE_KINDS` by their first bytes, an SVG image by its root); None
    otherwise."""
    for magic, kind in FILE_KINDS:
        if head.startswith(magic):
            return kind
    if head[:1] in (b"<", b"\xef", b" ", b"\t", b"\n", b"\r") and _SVG.match(head):
        return "an SVG image"
    return None


def _reads_as(head: bytes, encoding: str) -> bool:
    """Whether `head` decodes in `encoding` (a UTF-16 without a BOM) to text: letters,
    blanks and line ends, with a line end or a space among them (walk 27, F9: Chinese or
    Russian text in UTF-16 was "a binary file")."""
    even = head[: len(head) - len(head) % 2]
    try:
        text = even.decode(encoding)
    except UnicodeDecodeError:
        return False
    if not text or not any(ch in text for ch in "\n "):
        return False
    good = sum(1 for ch in text if ch.isprintable() or ch in "\t\n\r")
    return good >= len(text) * 0.97


def _texty(column: bytes) -> bool:
    """Whether the bytes a UTF-16/32 sniff takes for characters are mostly text: printable
    ASCII, blanks and line ends (a binary file's or a tar header's NUL columns leave
    bytes that are not; a file of NULs leaves none)."""
    if not column:
        return False
    text = sum(1 for b in column if 32 <= b < 127 or b in (9, 10, 13))
    return text >= len(column) * 0.9


#: The most control bytes a file with no NUL and few UTF-8 characters may hold to be text
#: in a legacy encoding (Shift_JIS, GB18030, CP1251: their bytes are letters), not data.
_LEGACY_CONTROLS = 0.01
#: Below `_BINARY_SHARE_ALONE`, a file is such text when at least this many characters and
#: this share of them do not decode, most of them (`_LEGACY_RUNS`) in runs of three
#: (measured: Shift_JIS, GB18030, EUC-KR and CP1251 text 0.5-1.0 in runs, Latin-1 and
#: CP1252 text 0.0).
_LEGACY_MIN = 16
_LEGACY_SHARE = 0.02
_LEGACY_RUNS = 0.4
_REPLACED_RUN = re.compile("\ufffd{3,}")
_LEGACY_TEXT = (
    "looks like text in another encoding than UTF-8 (convert it: iconv -f ENCODING -t UTF-8, "
    "ENCODING such as SHIFT_JIS, GB18030, EUC-KR or CP1251)"
)


def _other_encoding(name: str) -> str:
    """What `binary_reason` says of text in another Unicode encoding (`name`, iconv's:
    with a byte order mark, iconv reads its order there; without, the name says it)."""
    return f"looks like {name} text, not UTF-8 (convert it: iconv -f {name} -t UTF-8)"


#: A run of NUL bytes at least this long that ends a file's head is padding, not text in
#: another encoding (whose last character has at most three).
_NUL_PADDING = 16


def _not_text(raw: bytes, text: str) -> tuple[int, int]:
    """Of `text` (`raw` decoded with replacement), how many characters did not decode
    and how many are control characters no text holds."""
    undecodable = text.count("\ufffd") - raw.count(_REPLACEMENT)
    controls = sum(1 for ch in text if (ch < " " and ch not in _TEXT_CONTROLS) or ch == "\x7f")
    return undecodable, controls


_REPLACEMENT = "\ufffd".encode()


def binary_reason(head: bytes, what: str | None = "a log or markdown") -> str | None:
    """Why `head` (a file's first bytes) is not text, or None when it is.

    Text is UTF-8 (a stray invalid byte or NUL in a log is read, with a warning). A file
    is not text when it holds NUL bytes and more than a tenth of it is NULs, other
    control bytes or bytes that are not UTF-8 (a program, an image, random bytes), or
    when almost a third of it is, NUL or not; UTF-16 is named as such. `what`: what the
    file should have been (a gold file is refused in the same words); None: not said
    (a folder's listing says it under "nothing to read").
    """
    not_what = f", not {what}" if what else ""
    if head.startswith(GZIP_MAGIC):  # no text starts so (`check_text` says more of it)
        return f"looks like gzip-compressed data (decompress it first){not_what}"
    kind = file_kind(head)
    if kind is not None:  # a stored zip or an ASCII PDF may have few NULs
        return f"looks like {kind}{not_what}"
    if head[257:262] == b"ustar":  # a tar archive's mark, after its first member's name
        return f"looks like a tar archive (unpack it first){not_what}"
    if head.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):  # its BOM
        return _other_encoding("UTF-32")
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return _other_encoding("UTF-16")
    if not head:
        return None
    body = head.rstrip(b"\0")
    if body and len(head) - len(body) >= _NUL_PADDING:
        # NUL padding that ends what was read (a write a crash cut short: walk 29, F6):
        # the text before it is judged; the reader warns of the NULs as of any stray one
        head = body
    text = head.decode("utf-8", errors="replace")
    undecodable, controls = _not_text(head, text)
    share = (undecodable + controls) / len(text)
    nul = head.find(b"\x00")
    if nul >= 0 and share > _BINARY_SHARE:
        quarter = len(head) // 4
        # (a whole number of characters, two at least: `x\0` is no UTF-32, walk 39 F3)
        wide = len(head) % 4 == 0 and quarter >= 2
        for nuls, chars, name in (((1, 2, 3), 0, "UTF-32LE"), ((0, 1, 2), 3, "UTF-32BE")):
            if (
                wide
                and all(head[k::4].count(0) >= quarter * 0.9 for k in nuls)
                and _texty(head[chars::4])
            ):
                return _other_encoding(name)  # ASCII text four bytes a character, no BOM
        if len(head) % 2 == 0 and quarter and head.count(0) < len(head) * 0.6:
            # ASCII text two bytes a character, no BOM
            if head[1::2].count(0) > quarter and _texty(head[0::2]):
                return _other_encoding("UTF-16LE")
            if head[0::2].count(0) > quarter and _texty(head[1::2]):
                return _other_encoding("UTF-16BE")
            for name in ("UTF-16LE", "UTF-16BE"):  # other scripts' (CJK, Cyrillic), no BOM
                if _reads_as(head, name):
                    return _other_encoding(name)
        return f"looks like a binary file (NUL bytes at byte {nul}){not_what}"
    legacy = nul < 0 and controls <= len(text) * _LEGACY_CONTROLS  # bytes of letters, not data
    if share > _BINARY_SHARE_ALONE:
        if legacy:
            return _LEGACY_TEXT
        return f"looks like a binary file ({share:.0%} of its first bytes are not text){not_what}"
    if legacy and undecodable >= _LEGACY_MIN and undecodable >= len(text) * _LEGACY_SHARE:
        # fewer such bytes (a log's ASCII keys around Japanese text, walk 28, F17), but in
        # runs, as the letters of a legacy multibyte or Cyrillic encoding are; a Latin-1
        # file's accents stand alone between ASCII letters, and it is read with warnings
        runs = sum(len(run) for run in _REPLACED_RUN.findall(text))
        if runs >= undecodable * _LEGACY_RUNS:
            return _LEGACY_TEXT
    return None


def side_file_text(raw: bytes, what: str) -> str:
    """A side file's text (a query, snapshot, settings or config file): `ValueError`
    saying what it looks like when it is not text (`binary_reason`), else where it is not
    UTF-8 (``LINE: not UTF-8 text (byte N)``: the caller puts its path first)."""
    reason = binary_reason(raw[:HEAD_BYTES], what)
    if reason is not None:
        raise ValueError(reason)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw.count(b"\n", 0, e.start) + 1
        raise ValueError(f"{line}: not UTF-8 text (byte {e.start})") from None


def located(reason: str) -> str:
    """`reason` as it follows a path: ``:LINE: ...`` when it starts with a line number
    (`side_file_text`), else ``: ...``."""
    return f":{reason}" if reason[:1].isdigit() else f": {reason}"


#: At most this many layers of gzip are counted in a file compressed more than once.
_GZIP_LAYERS = 8


def head_reason(head: bytes, what: str | None = "a log or markdown") -> str | None:
    """`binary_reason` of a head `read_head` gave: one still gzip is a gzip file it got
    nothing out of (cut short in its header, damaged)."""
    if head.startswith(GZIP_MAGIC):
        not_what = f", not {what}" if what else ""
        times, data = 1, head  # the layer `read_head` took off, then each inside it
        while data.startswith(GZIP_MAGIC) and times < _GZIP_LAYERS:
            try:  # a gzip inside a gzip: it decompresses, into another one
                data = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data, 4096)
            except zlib.error:
                data = b""
            if not data:
                break
            times += 1
        if times > 1:  # walk 28, F1: three layers were "twice"
            said = "twice" if times == 2 else f"{times} times"
            return f"looks like a file gzip-compressed {said} (decompress it {said}){not_what}"
        return f"looks like a gzip file that does not decompress (cut short or damaged){not_what}"
    return binary_reason(head, what)


def file_reason(path: Path, head: bytes, reason: str | None) -> str | None:
    """`reason` (`head_reason` of `head`, the head `read_head` gave of `path`), saying
    that the file is gzip-compressed when it is: `binary_reason` judged what it holds,
    and its advice (an ``iconv`` line) is for that, not for the compressed file."""
    if reason is None or head.startswith(GZIP_MAGIC):
        return reason
    try:
        with path.open("rb") as fh:
            compressed = fh.read(len(GZIP_MAGIC)) == GZIP_MAGIC
    except OSError:
        return reason
    if not compressed:
        return reason
    return f"is gzip-compressed (decompress it first: gunzip -k); inside, it {reason}"


def check_text(path: str | Path) -> None:
    """`NotText` when `path` is not a text file (see `binary_reason`): every command and
    the workbench's open path refuse such a file before reading it."""
    p = Path(path)
    _check_regular_file(p)
    try:
        head = read_head(p)
    except PermissionError:
        raise SourceError(p, "permission denied") from None
    except OSError as e:
        raise SourceError(p, e.strerror or str(e)) from None
    reason = file_reason(p, head, head_reason(head))
    if reason is not None:
        raise NotText(p, reason)


#: Lines read between two progress calls while parsing (tens of ms on a large log).
PROGRESS_LINES = 2048


def _decode(raw: bytes, lineno: int, warnings: list[Problem]) -> str:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        warnings.append(
            Problem(lineno, f"invalid UTF-8 at byte {e.start}, decoded with replacement")
        )
        text = raw.decode("utf-8", errors="replace")
    if "\x00" in text:  # a stray NUL: never passed on to a terminal, a page or a recap
        body = text.rstrip("\r\n")
        kept = body.rstrip("\x00")
        if len(body) - len(kept) >= _NUL_PADDING and "\x00" not in kept:
            # the padding a crash leaves at the end of a file (`binary_reason` judges the
            # text before it): left out, not read as U+FFFD into the last paragraph or
            # record (walk 32, F2)
            warnings.append(
                Problem(
                    lineno,
                    f"ends in {len(body) - len(kept):,} NUL bytes (a write cut short?), left out",
                )
            )
            return kept + text[len(body) :]
        at = raw.find(b"\x00")
        warnings.append(Problem(lineno, f"NUL byte at byte {at}, read as U+FFFD"))
        text = text.replace("\x00", "\ufffd")
    return text


#: The start of the warning a gzip file cut short gets (`_compressed_problem`), which
#: `require_turns` says when the cut left no turn.
COMPRESSED_CUT = "the compressed file ends early"


def _compressed_problem(e: Exception) -> str:
    """What went wrong in a gzip stream after its start (`e`, as `gzip` raised it): bytes
    after the whole stream that are no gzip (the log was read whole: walk 28, F1 said
    "ends early ... the rest is lost" of them), or a stream cut short or damaged."""
    if str(e).startswith("Not a gzipped file"):
        return f"the bytes after the compressed data are not gzip ({e}); they are left out"
    return f"{COMPRESSED_CUT} ({e}); the rest is lost"


def _iter_lines(
    path: Path, warnings: list[Problem], progress: Progress | None = None
) -> Iterator[tuple[int, str]]:
    """Yield (1-based line number, text without line ending), streaming.

    ``progress(bytes read, file size)`` is called every `PROGRESS_LINES` lines and
    at the end.
    """
    with _open_binary(path) as fh:
        total = path.stat().st_size if progress is not None else 0
        compressed = hasattr(fh, "fileobj")
        done = read = 0
        tail = _Tail()
        try:
            for lineno, raw in enumerate(fh, start=1):
                read = lineno
                warned = len(warnings)
                text = _decode(raw, lineno, warnings)
                if lineno == 1:
                    text = text.removeprefix(BOM)
                tail.add(raw, text, done, len(warnings) > warned)
                done += len(raw)
                if progress is not None and lineno % PROGRESS_LINES == 0:
                    at = _raw_position(fh) if compressed else done
                    progress(min(at, total), total)
                yield lineno, text.rstrip("\r\n")
        except (OSError, EOFError, zlib.error) as e:  # a damaged or truncated gzip stream
            warnings.append(Problem(read + 1, _compressed_problem(e)))
        reason = tail.reason()
        if reason is not None:
            raise NotText(path, reason)
        if progress is not None:
            progress(total, total)


class _Tail:
    """What of a file read line by line is not text, judged as `binary_reason` judges a
    file's head: a file whose head is text but most of it binary (a document with
    200 KB of random bytes after 64 KB of text: walk 43, F1) is no text either. Only the
    lines `_decode` warned of are looked into (a text file has few)."""

    __slots__ = ("bytes", "chars", "controls", "nul", "undecodable")

    def __init__(self) -> None:
        self.bytes = self.chars = self.undecodable = self.controls = 0
        self.nul: int | None = None  # where the first NUL byte is

    def add(self, raw: bytes, text: str, at: int, warned: bool) -> None:
        """A line: `raw`, its bytes at byte `at` of the file; `text`, as decoded;
        `warned`: `_decode` warned of it."""
        self.bytes += len(raw)
        self.chars += len(text)
        if warned:
            undecodable, controls = _not_text(raw, text)
            self.undecodable += undecodable
            self.controls += controls
            if self.nul is None and (nul := raw.find(b"\x00")) >= 0:
                self.nul = at + nul

    def reason(self) -> str | None:
        """What the file looks like when it is not text, else None; None for a file no
        longer than the head `binary_reason` judges (it has said what it had to)."""
        if self.bytes <= HEAD_BYTES:
            return None
        share = (self.undecodable + self.controls) / self.chars
        if self.nul is not None and share > _BINARY_SHARE:
            return f"looks like a binary file (NUL bytes at byte {self.nul}), not a log or markdown"
        if share > _BINARY_SHARE_ALONE:
            if self.nul is None and self.controls <= self.chars * _LEGACY_CONTROLS:
                return _LEGACY_TEXT
            return (
                f"looks like a binary file ({share:.0%} of it is not text), not a log or markdown"
            )
        return None


# --------------------------------------------------------------------------- JSONL


def parse_timestamp(value: Any) -> datetime | None:
    """ISO 8601 with optional fractional seconds, ``Z`` or ``+HH:MM``, or an epoch number
    (seconds, or milliseconds when it is too large to be seconds); None stays None."""
    if value is None or isinstance(value, datetime):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _from_epoch(float(value))
    if not isinstance(value, str):
        raise ValueError(f"timestamp is {type(value).__name__}, not a string")
    try:  # the usual case, ``Z`` included (Python 3.11)
        return datetime.fromisoformat(value)
    except ValueError:
        pass
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"unreadable timestamp {value[:40]!r}") from None


#: An epoch number above this is in milliseconds (1e11 s is the year 5138).
_EPOCH_MS = 1e11


def _from_epoch(seconds: float) -> datetime:
    from datetime import UTC

    if seconds != seconds or seconds in (float("inf"), float("-inf")):
        raise ValueError("timestamp is not a finite number")
    if abs(seconds) > _EPOCH_MS:
        seconds /= 1000.0
    try:
        return datetime.fromtimestamp(seconds, tz=UTC)
    except (OverflowError, OSError, ValueError):
        raise ValueError(f"timestamp {seconds:g} is out of range") from None


def _lf(text: str) -> str:
    return text.replace("\r\n", "\n") if "\r\n" in text else text


def unified_line_ends(msg: dict[str, Any]) -> None:
    """In place: the CRLF line ends of a message's text (its content and its parts, its
    reasoning, its calls' arguments) as ``\\n``: a Windows tool's output keeps its CRLF
    inside a JSON string, and a blank line there was no blank line to the splitter (walk
    51, F11: one chunk of 72,000 tokens) and showed as ``^M``. A lone CR (a progress
    bar's) stays: the views show its line as one (walk 13, 8). The seed's own reader
    (`parse_turns`) keeps the text as the reference did."""
    for key in ("content", "reasoning", "reasoning_content"):
        value = msg.get(key)
        if isinstance(value, str):
            msg[key] = _lf(value)
        elif isinstance(value, list):
            for part in value:
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    part["text"] = _lf(part["text"])
    calls = msg.get("tool_calls")
    for call in calls if isinstance(calls, list) else []:
        func = call.get("function") if isinstance(call, dict) else None
        holder = func if isinstance(func, dict) else call
        args = holder.get("arguments") if isinstance(holder, dict) else None
        if isinstance(args, str) and "\\r\\n" in args:  # JSON text: its escaped CRLFs
            holder["arguments"] = args.replace("\\r\\n", "\\n")
        elif isinstance(args, dict):
            for k, v in args.items():
                if isinstance(v, str):
                    args[k] = _lf(v)


def content_text(content: Any) -> str:
    """A message's content as text: strings as they are, text parts joined, null empty."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[str] = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict):
                text = part.get("text")
                if isinstance(text, str):
                    parts.append(text)
        return "\n".join(parts)
    return json.dumps(content, ensure_ascii=False)


def decode_object(line: str) -> dict[str, Any]:
    """One JSONL line as a JSON object; ValueError says what is wrong with it."""
    try:
        obj = json.loads(line)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    except json.JSONDecodeError as e:
        # Some of json's messages end in " at" ("Invalid control character at").
        msg = e.msg.removesuffix(" at")
        raise ValueError(f"not valid JSON ({msg} at column {e.colno})") from None
    if not isinstance(obj, dict):
        kind = "null" if obj is None else type(obj).__name__
        kind = {"list": "an array", "str": "a string", "int": "a number", "float": "a number"}.get(
            kind, kind
        )
        raise ValueError(f"not a JSON object (got {kind})")
    return obj


def decode_message(line: str) -> dict[str, Any]:
    """One JSONL line as a message object of the seed's format; ValueError says what is
    wrong with it."""
    obj = decode_object(line)
    role = obj.get("role")
    if role is None:
        raise ValueError("missing 'role'")
    if not isinstance(role, str):
        raise ValueError(f"'role' is {type(role).__name__}, not a string")
    parse_timestamp(obj.get("timestamp"))
    return obj


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _without_surrogates(text: str) -> str:
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def replace_lone_surrogates(obj: Any) -> bool:
    """Replace, in place, lone surrogates in every string of a decoded JSON value.

    JSON may escape half of a UTF-16 pair (``"\\ud800"``); such a string cannot be
    encoded as UTF-8, so writing it anywhere would fail. Returns whether any was found.
    """
    fixed = False
    stack: list[Any] = [obj]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key in list(node):
                value = node[key]
                if isinstance(value, str) and _SURROGATE.search(value):
                    node[key] = value = _without_surrogates(value)
                    fixed = True
                if isinstance(key, str) and _SURROGATE.search(key):
                    del node[key]
                    node[_without_surrogates(key)] = value
                    fixed = True
                if isinstance(value, dict | list):
                    stack.append(value)
        elif isinstance(node, list):
            for i, value in enumerate(node):
                if isinstance(value, str) and _SURROGATE.search(value):
                    node[i] = _without_surrogates(value)
                    fixed = True
                elif isinstance(value, dict | list):
                    stack.append(value)
    return fixed


def iter_records(
    path: str | Path,
    decode: Callable[[str], dict[str, Any]] = decode_object,
    *,
    strict: bool = False,
    skipped: list[Problem] | None = None,
    warnings: list[Problem] | None = None,
    progress: Progress | None = None,
) -> Iterator[Message]:
    """Stream the JSON objects of a JSONL file (each decoded by `decode`, with its line),
    skipping (or, strict, raising on) bad lines. ``progress(bytes read, file size)`` is
    called as the file is read."""
    for lineno, obj in iter_objects(
        path, decode, strict=strict, skipped=skipped, warnings=warnings, progress=progress
    ):
        yield Message(obj, lineno)


def iter_objects(
    path: str | Path,
    decode: Callable[[str], dict[str, Any]] = decode_object,
    *,
    strict: bool = False,
    skipped: list[Problem] | None = None,
    warnings: list[Problem] | None = None,
    progress: Progress | None = None,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """`iter_records` as (line, object) pairs, without making a `Message` of each."""
    p = Path(path)
    _check_regular_file(p)
    skipped = skipped if skipped is not None else []
    warnings = warnings if warnings is not None else []
    for lineno, line in _iter_lines(p, warnings, progress):
        if not line.strip():
            continue
        try:
            obj = decode(line)
        except ValueError as e:
            if strict:
                raise ParseError(p, lineno, str(e)) from None
            skipped.append(Problem(lineno, str(e)))
            continue
        if _SURROGATE_ESCAPE.search(line) and replace_lone_surrogates(obj):
            warnings.append(Problem(lineno, "lone UTF-16 surrogate escape, replaced with U+FFFD"))
        yield lineno, obj


def iter_messages(
    path: str | Path,
    *,
    strict: bool = False,
    skipped: list[Problem] | None = None,
    warnings: list[Problem] | None = None,
    progress: Progress | None = None,
) -> Iterator[Message]:
    """Stream the messages of a JSONL log of the seed's format (see `iter_records`)."""
    return iter_records(
        path, decode_message, strict=strict, skipped=skipped, warnings=warnings, progress=progress
    )


#: A run of blank lines (two or more, any spaces on them counted as blank), the
#: blank lines a text opens with and those it ends with (`words_only`; a text's one
#: final newline stays).
_BLANK_RUN = re.compile(r"\n(?:[^\S\n]*\n){2,}")
_BLANK_EDGES = re.compile(r"\A(?:[^\S\n]*\n)+|(?:\n[^\S\n]*){2,}\Z")


def words_only(text: str) -> str:
    """`text` with no paragraph of whitespace alone when it is split at its blank lines
    (as chunks are: `engine.chunk.split.chunk_turns`): its blank first and last lines
    left out, each run of blank lines one. A run in a tool's output, or an output that
    opens with a blank line (Codex code mode's), gave a ``Tool: `` unit with no words, a
    chunk of its own at ``--min-chars 1`` (walk 56, F9). Not for a text whose lines are
    the file's (aider's history: its paragraphs' line numbers come from them), nor the
    seed's log: its chunks are the seed's, ``--merge seed``'s too."""
    if "\n" not in text:
        return text
    return _BLANK_EDGES.sub("", _BLANK_RUN.sub("\n\n", text))


def message_turns(
    msg: dict[str, Any],
    line: int | None,
    first_index: int,
    *,
    show_calls: bool = False,
    drop_empty: bool = False,
    end_line: int | None = None,
    part_ends: PartEnds = NO_PART_ENDS,
    text_start: int | None = None,
    tidy: bool = False,
    pieces: tuple[tuple[int, int], ...] | None = None,
) -> list[Turn]:
    """The turns one message yields: an optional ``Bot thinking`` turn, then its content.

    With `show_calls`, a message that calls tools says which after its text, in the
    order made, as a person reads them (`engine.toolcall`: ``$ ls -la``, ``Read
    notes.md``), so a call is never hidden by the text beside it; the seed's
    `parse_turns` shows only the content, as the reference did. With `drop_empty`, a
    message whose text is blank and that calls no tool yields no turn of its own (its
    thinking alone, or nothing: an assistant message of "\\n\\n" says nothing).
    `end_line`: the message's last line when it spans several (`Turn.end_line`);
    `part_ends`: where its reasoning and its content alone end, when known;
    `text_start`: where its text starts, after `line` (`Turn.text_start`); `tidy`: its
    texts with no paragraph of whitespace alone (`words_only`; not the seed's);
    `pieces`: where each record of a content joined from several starts (`Turn.pieces`).
    """
    ts = parse_timestamp(msg.get("timestamp"))
    role = msg["role"]
    out: list[Turn] = []
    reasoning = msg.get("reasoning") or msg.get("reasoning_content")
    if reasoning:
        out.append(
            Turn(
                ts,
                THINKING_ROLE,
                words_only(content_text(reasoning)) if tidy else content_text(reasoning),
                line,
                first_index,
                end_line=part_ends.thinking or end_line,
            )
        )
    name = ROLE_NAMES.get(role, role)
    text = content_text(msg.get("content"))
    if tidy:
        text = words_only(text)
    end = part_ends.content or end_line
    text_end = None  # where the text before the calls ends (walk 35, F1)
    if show_calls and msg.get("tool_calls"):
        calls = calls_text(msg["tool_calls"])
        if calls:
            text_end = part_ends.content if text.strip() else None
            text = f"{text}\n{calls}" if text.strip() else calls
            end = end_line
    if not (drop_empty and not text.strip()):
        turn = Turn(
            ts,
            name,
            text,
            line,
            first_index + len(out),
            end_line=end,
            text_end=text_end,
            text_start=text_start,
            pieces=pieces,
        )
        out.append(turn)
    return out


def parse_turns(path: str | Path, *, strict: bool = False) -> list[Turn]:
    """The seed's JSONL parser: one turn per message, reasoning first as ``Bot thinking``."""
    return load_jsonl(path, strict=strict).turns


def load_jsonl(
    path: str | Path,
    *,
    strict: bool = False,
    keep_messages: bool = True,
    progress: Progress | None = None,
    show_calls: bool = False,
) -> Source:
    """The seed's JSONL log (`show_calls`: see `message_turns`)."""
    skipped: list[Problem] = []
    warnings: list[Problem] = []
    turns: list[Turn] = []
    messages: list[Message] = []
    with gc_paused():
        messages_of = iter_messages(
            path, strict=strict, skipped=skipped, warnings=warnings, progress=progress
        )
        read = 0
        for msg in messages_of:
            read += 1
            if show_calls:  # (the product's reading: the seed's keeps its text as it is)
                if "content" not in msg and isinstance(msg.get("text"), str):
                    # an export that names the text `text` (walk 51, F16: turns of bare
                    # role labels to `chunk`, no turns at all to `recap`)
                    msg["content"] = msg["text"]
                unified_line_ends(msg)
            turns.extend(message_turns(msg, msg.line, len(turns), show_calls=show_calls))
            if keep_messages:
                messages.append(msg)
    size = Path(path).stat().st_size
    return Source(
        str(path), "jsonl", turns, messages, skipped, warnings, size, read + len(skipped), read=read
    )


# --------------------------------------------------------------------------- markdown

#: The seed's heading (`engine.read.headings.ATX`); the fence lines are declared there too.
HEADING = ATX
_MARKUP_FIRST = frozenset(" `~#")


def markdown_sections(lines: list[str]) -> list[tuple[int, str]]:
    """(first line number, stripped text) of each section; fenced ``#`` lines are not headings."""
    # Only a line that starts with a space, a backtick, a tilde or a hash can open or close
    # a fence or be a heading: the others are never looked at one by one.
    fence: str | None = None
    heads: list[int] = []  # 0-based index of each heading line outside fences
    first_chars = _MARKUP_FIRST
    for i in [i for i, line in enumerate(lines) if line[:1] in first_chars]:
        line = lines[i]
        was = fence
        fence = fence_after(line, fence)
        if was is None and fence is None and HEADING.match(line):
            heads.append(i)
    return _sections_at(lines, heads)


def document_sections(lines: list[str]) -> list[tuple[int, str]]:
    """(first line number, stripped text) of each section of a document, as
    `markdown_sections` gives them but cut at every heading `engine.read.headings` knows
    (ATX, setext, reStructuredText, HTML): a section opens at its heading's first line
    (an overline's), its underline in it."""
    return _sections_at(lines, [h.start for h in find_headings(lines)])


def _sections_at(lines: list[str], heads: list[int]) -> list[tuple[int, str]]:
    """(first line number, stripped text) of the sections `lines` has when one opens at
    each of `heads` (0-based line indexes, in order); a section of blank lines is none."""
    sections: list[tuple[int, str]] = []
    starts = [0, *heads]
    for a, b in zip(starts, [*heads, len(lines)], strict=True):
        text = "\n".join(lines[a:b]).strip()
        if text:
            offset = next(i for i in range(a, b) if lines[i].strip())
            sections.append((offset + 1, text))
    return sections


#: Files up to this size are read and decoded at once when they are plain UTF-8.
WHOLE_READ_BYTES = 64 << 20


def _whole_lines(path: Path, size: int) -> list[str] | None:
    """The lines `_iter_lines` would give, from one read and one decode; None when the
    file is large, compressed, not valid UTF-8 or holds a NUL (then it is read line by
    line, which reports each bad line). Loads that report progress (and may be stopped through
    it) read line by line."""
    if size > WHOLE_READ_BYTES:
        return None
    with _open_binary(path) as fh:
        if hasattr(fh, "fileobj"):
            return None
        data: bytes = fh.read()
    if b"\x00" in data:
        return None  # read line by line, which reports each NUL (`_decode`)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # the file ends with a line break (or is empty)
    if lines:
        lines[0] = lines[0].removeprefix(BOM)
    if "\r" in text:
        lines = [line.rstrip("\r") for line in lines]
    return lines


def load_markdown(
    path: str | Path,
    progress: Progress | None = None,
    *,
    name_turn: bool = True,
    seed_headings: bool = True,
) -> Source:
    """A markdown file as a source: a turn with the file name (the seed's, without a
    line: `name_turn`), then one ``Doc`` turn per section. The markdown reader of
    `engine.read.formats` leaves the name turn out: a chunk of its own with no line,
    and a recap that opens with a bare file name, say nothing the source path does not.
    With `seed_headings` (the seed's parser) a section opens at an ATX heading only
    (`markdown_sections`); without, at every heading `engine.read.headings` knows
    (`document_sections`: setext, reStructuredText and HTML headings too)."""
    p = Path(path)
    st = _check_regular_file(p)
    warnings: list[Problem] = []
    lines = _whole_lines(p, st.st_size) if progress is None else None
    if lines is None:
        lines = [line for _, line in _iter_lines(p, warnings, progress)]
    if len(lines) == 1 and "\r" in lines[0]:  # classic Mac line ends (a CR alone): its lines
        lines = lines[0].split("\r")
    turns: list[Turn] = []
    if any(line.strip() for line in lines):
        mtime = datetime.fromtimestamp(st.st_mtime)
        if name_turn:
            turns.append(Turn(mtime, DOC_ROLE, p.name, None, 0))
        sectioned = markdown_sections if seed_headings else document_sections
        for lineno, text in sectioned(lines):
            last = lineno + text.count("\n")
            turns.append(Turn(mtime, DOC_ROLE, text, lineno, len(turns), last))
    return Source(str(path), "markdown", turns, [], [], warnings, st.st_size)


def parse_turns_md(path: str | Path) -> list[Turn]:
    """The seed's markdown parser: the file name, then one ``Doc`` turn per section."""
    return load_markdown(path).turns


# --------------------------------------------------------------------------- usable or not

_DETAIL = re.compile(r"\s*\(.*\)$|\s+at column \d+.*$")


def reason_kind(reason: str) -> str:
    """A skip reason without its details (``not valid JSON (Expecting ...)`` -> ``not
    valid JSON``), so reasons can be counted by kind."""
    return _DETAIL.sub("", reason) or reason


def skipped_summary(source: Source, kinds: int = 3) -> str:
    """``skipped 12 malformed lines of 20 (10 missing 'role', 2 not valid JSON; first:
    path:3: missing 'role')``: how many, of how many, the commonest reasons by kind."""
    from collections import Counter

    n = len(source.skipped)
    counts = Counter(reason_kind(p.reason) for p in source.skipped)
    by_kind = ", ".join(f"{c} {k}" for k, c in counts.most_common(kinds))
    first = source.skipped[0]
    of = f" of {source.records}" if source.records else ""
    return (
        f"skipped {n} malformed line{'s' if n != 1 else ''}{of} "
        f"({by_kind}; first: {source.path}:{first.line}: {first.reason})"
    )


#: What `require_turns` and `check_not_blank` say of a file with nothing to read.
NOTHING_TO_READ = "no turns: the file is empty or has nothing to read"


def check_not_blank(path: str | Path) -> None:
    """`SourceError` (as `require_turns` says it) when `path` is a small file of no bytes
    or only whitespace: a cheap check, so the workbench refuses it before it starts. A
    larger file, or one that only parses to no turns, is `require_turns`' to refuse."""
    p = Path(path)
    try:
        if p.stat().st_size > HEAD_BYTES:
            return
        raw = p.read_bytes()
    except OSError:
        return  # `check_text` says why it cannot be read
    if not raw.startswith(GZIP_MAGIC) and not raw.strip():
        raise SourceError(p, NOTHING_TO_READ)


def require_turns(source: Source) -> None:
    """`SourceError` when `source` yields no turns: every line skipped (how many, and the
    reasons by kind), or nothing readable. A file like that is an error, never an empty
    success: no output is written for it."""
    if source.turns:
        return
    for problem in source.warnings:  # a gzip file cut short in its first line (walk 28, F1)
        if problem.reason.startswith(COMPRESSED_CUT):
            raise SourceError(source.path, f"no turns: {problem.reason}")
    if source.skipped:
        broken = broken_document(source.path)
        if broken is not None:
            raise broken
        raise SourceError(source.path, f"no turns: {skipped_summary(source)}")
    raise SourceError(source.path, NOTHING_TO_READ)


#: The largest file `broken_document` reads again to say where its document breaks.
_DOCUMENT_LOOKED_INTO = 64 << 20
#: What a JSON document laid out over lines that does not parse is said to be.
BROKEN = "a JSON document that does not parse (cut short, or something after it?)"


class BrokenDocument(SourceError):
    """A JSON document laid out over lines (a Gemini chat, a trajectory) that does not
    parse: said as a malformed line is (`ParseError`), ``path:line: reason``, at the line
    where it breaks; ``path: reason`` when no line says it (bytes that are not UTF-8).
    The same read leniently, with --strict or with --input-format naming its format
    (walk 56, F7: --strict said line 1, its first line read as a JSON line)."""

    def __init__(self, path: str | Path, line: int | None, reason: str) -> None:
        super().__init__(path, reason)
        self.line = line
        if line is not None:
            self.args = (f"{self.path}:{line}: {reason}",)


def document_error(path: str | Path, error: json.JSONDecodeError) -> BrokenDocument:
    """The `BrokenDocument` a JSON document's decoding `error` says (its column as a
    malformed line's, `decode_object`)."""
    where = f"{error.msg.removesuffix(' at')} at column {error.colno}"
    return BrokenDocument(path, error.lineno, f"{BROKEN}: {where}")


def broken_document(path: str | Path) -> BrokenDocument | None:
    """Why a file that opens a JSON document laid out over lines (its first line ``{`` or
    ``[``, no whole value) does not parse, or None: a Gemini chat or a trajectory cut
    short or with bytes after it was read as JSON lines, every line of it said malformed
    ("skipped 4034 malformed lines": walk 50, F3)."""
    try:
        if Path(path).stat().st_size > _DOCUMENT_LOOKED_INTO:
            return None  # (its lines are said as they are: no whole second read of it)
        raw = Path(path).read_bytes()
        if raw.startswith(GZIP_MAGIC):
            raw = gunzip_readable(raw)
    except (OSError, ValueError, EOFError):
        return None
    first = raw.lstrip().split(b"\n", 1)[0].strip()
    if not first.startswith((b"{", b"[")):
        return None
    try:
        json.loads(first)
        return None  # a whole value on its first line: JSON lines, each said as it is
    except (ValueError, RecursionError):
        pass
    try:
        json.loads(raw.rstrip(b"\0"))
        return None
    except json.JSONDecodeError as e:
        return document_error(path, e)
    except UnicodeDecodeError as e:
        return BrokenDocument(
            path, None, f"{BROKEN}: bytes that are not UTF-8 text at byte {e.start}"
        )
    except (ValueError, RecursionError):
        return None
