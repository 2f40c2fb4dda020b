"""Walk 69 (summaries and the recap's Where it stopped), the findings fixed here.

F2: a summary kept the closing ``*`` of a span in italics whose opening it cut off
(``... you will see something like `/dev/sdc1`.* *(Replace ...).*``, M-Gemini's
dea67935 session). F4: Where it stopped kept a list item's state ("The **Windows Time**
service was stopped.") and dropped the sentence saying what was done ("I changed its
startup type to **Automatic** and started it."). F5: mini-swe-agent: Where it stopped
said the PR text the agent quoted in ``> `` lines as the agent's own state. F10: Where it
stopped on one line kept a fenced block indented in a list item as literal
"```bash lsblk ```". F13: Gemini thoughts: one subject label said twice in one summary
("Verifying Installation Success: ... Verifying Installation Success: ...").

Each test fails on the code before its fix; inputs are modelled on the walk's real files
(/tmp/walk69/files), made small."""

from __future__ import annotations

import re

from chunkscope.engine.summarize.extractive import ExtractiveSummarizer, split_sentences

#: A single ``*`` (not bold's): what opens or closes italics.
LONE_STAR = re.compile(r"(?<!\*)\*(?!\*)")

DRIVE_STEPS = (
    "You: how do I format E: to ext4?\n"
    "Bot: Here is how to format the drive from CachyOS.\n\n"
    "1.  **Find the device name:**\n"
    "    Run the list block devices command:\n"
    "    ```bash\n    lsblk\n    ```\n"
    "    *Look for a drive that matches the size of your Disk 2. It will likely be "
    "`/dev/sdc` or `/dev/sdd`. If it has an existing partition (like your old E:), you "
    "will see something like `/dev/sdc1`.*\n\n"
    "2.  **Format the partition:**\n"
    "    Assuming the partition is `sdc1`, run:\n\n"
    "    ```bash\n    sudo mkfs.ext4 /dev/sdc1\n    ```\n"
    "    *(Replace `sdc1` with your actual identifier found in the previous step).*\n"
)


def test_f2_a_sentence_cut_out_of_italics_keeps_both_marks() -> None:
    for s in split_sentences(DRIVE_STEPS):
        assert len(LONE_STAR.findall(s.text)) % 2 == 0, s.text
    summary = ExtractiveSummarizer().summarize(DRIVE_STEPS)
    for said in (summary.abstract, summary.summary):
        assert len(LONE_STAR.findall(said)) % 2 == 0, said
        assert ".* *(" not in said, said


def test_f2_a_glob_and_a_product_are_no_italics() -> None:
    said = [s.text for s in split_sentences("Bot: Use 2 * 3 here. Then *.py files. Run *all* now.")]
    assert said == ["Use 2 * 3 here.", "Then *.py files.", "Run *all* now."]
