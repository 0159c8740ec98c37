"""BENCHMARKS.md is written by several bench scripts, each owning one `## ` section."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def replace_section(title, section, before="## Fuzzing"):
    """Puts `section` (starting with `title`) in BENCHMARKS.md in place of the old one,
    or before the `before` section when there is none yet."""
    path = REPO / "BENCHMARKS.md"
    text = path.read_text()
    start = text.find("\n" + title)
    if start >= 0:
        end = text.find("\n## ", start + 1)
        text = text[:start] + text[end if end >= 0 else len(text):]
    at = text.find("\n" + before)
    at = at if at >= 0 else len(text)
    text = text[:at] + "\n" + section + text[at:]
    path.write_text(text)
