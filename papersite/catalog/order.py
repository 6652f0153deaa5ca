"""How the catalog orders papers by title: as a title is read, not as it is written."""
from __future__ import annotations

from ..text.plain import plain_title
from ..text.words import reading_key


def title_key(title: str) -> str:
    """A title's place in A-Z order: "$\\Phi$Flow" sorts as "phiflow", among the P's."""
    return reading_key(plain_title(title))
