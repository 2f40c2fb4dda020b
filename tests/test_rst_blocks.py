"""reStructuredText's code and markup in summaries and units (walk 19, 2: once .rst files
opened sections, their summaries were directive lines, ``.. option:: v. .. option:: z.``,
and a literal block's digests, while the one real sentence was dropped)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkscope.engine.summarize import ExtractiveSummarizer
from chunkscope.tui.cli import main

RST = """Checksums
=========

Create SHA1 checksum of files in ``sha1sum`` compatible format::

    4bb7932a29e6f73c97bb9272f2bdc393122f86e0  file1.txt
    1df4c8f318665f9a5f2ed38f55adadb7ef9f559c  file2.txt

.. versionadded:: 3.1

.. option:: v

   Enable verbose output while the checksums are written.

.. code-block:: cmake

  add_library(archive archive.cpp)

  add_executable(zipapp zipapp.cpp)

The checksum tool reads every file given and prints one digest per line, in the order given.
"""


def test_a_summary_says_the_prose_and_no_directive_nor_literal_line() -> None:
    text = "\n".join(f"Doc: {p}" for p in RST.split("\n\n"))
    summary = ExtractiveSummarizer().summarize(text)
    said = f"{summary.abstract} {summary.summary}"
    assert ".. " not in said and "::" not in said.replace("format::", "")
    assert "4bb7932a" not in said and "add_library" not in said
    sentences = [s.text for s in ExtractiveSummarizer().extract(text).sentences]
    assert not any(s.startswith("..") or "4bb7932a" in s or "add_" in s for s in sentences)
    assert any(s.startswith("The checksum tool reads every file given") for s in sentences)
    # a prose directive's body is prose: its sentence may be told, after the name it
    # describes (walk 69, F11)
    assert "`v`: Enable verbose output while the checksums are written." in sentences


def test_the_recap_of_an_rst_file_is_its_prose(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "lit.rst"
    path.write_text(RST)
    assert main(["recap", str(path), "--format", "json"]) == 0
    recap = json.loads(capsys.readouterr().out)["recap"]
    assert ".. option" not in recap and ".. versionadded" not in recap
    assert "4bb7932a" not in recap and "add_library" not in recap
    assert "Create SHA1 checksum" in recap
