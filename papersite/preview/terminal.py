"""Text the preview prints, made safe for a terminal.

Request lines, Host values, file names and build messages can hold terminal
control sequences; printed as they are, they could move the cursor, recolour
or retitle the terminal, or hide what came before.
"""
from __future__ import annotations


def printable(text: str | bytes, limit: int = 200) -> str:
    """Text safe for a terminal: control, format and non-ASCII characters escaped, long text cut."""
    if isinstance(text, bytes):
        text = text.decode("ascii", "backslashreplace")
    escaped = "".join(c if c.isprintable() and c.isascii() else
                      c.encode("unicode_escape").decode("ascii") for c in text[:limit])
    return escaped[:limit] + ("..." if len(escaped) > limit or len(text) > limit else "")


def terminal_text(text: str) -> str:
    """Lines safe for a terminal: control and format characters escaped, line breaks and accents kept."""
    return "\n".join("".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in line)
                     for line in text.split("\n"))
