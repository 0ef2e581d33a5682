"""Display names that cannot impersonate: which characters a team or system name may
hold, and the key under which two names look the same.

One Unicode version, :data:`UNICODE_VERSION` (15.1.0), for every character property used
here: :mod:`unicodedata2` is pinned to it (``pyproject.toml``), so a name's verdict does
not depend on the interpreter (the standard library's :mod:`unicodedata` is Unicode 14 on
Python 3.11, 15 on 3.12), and it is the version of confusable-homoglyphs' data, which
states none: its script table (``categories.json``, Unicode's ``Scripts.txt``) covers
exactly the characters Unicode 15.1.0 assigns, and its ``confusables.json`` was made from
Unicode's ``confusables.txt`` by the same update command (``tests/test_names.py`` checks
both).  Case folding and upper-casing are Python's own (``str.casefold``, ``str.upper``).

Characters (:func:`bad_characters`), by their Unicode general category:

* refused: controls (Cc), formatting characters (Cf: the zero-width space, joiners, the
  bidirectional overrides and isolates, the byte order mark ...), surrogates (Cs),
  private-use characters (Co: no standard glyph), code points that are not characters
  (Cn: the 66 noncharacters and the unassigned), line and paragraph separators (Zl, Zp),
  and the default-ignorable characters of other categories that render as nothing
  (:data:`INVISIBLE_LETTERS`: Hangul fillers, the combining grapheme joiner, Khmer
  inherent vowels, Mongolian variation selectors);
* kept but invisible: white space, U+2800 BRAILLE PATTERN BLANK (a blank glyph, read as a
  space) and the variation selectors (U+FE00-U+FE0F, U+E0100-U+E01EF), which only choose
  a glyph of the character before them (an emoji's colour form).  A name with nothing
  else (:func:`has_visible`) is refused.

The look-alike keys (:func:`lookalike_keys`): the name without variation selectors (and
refused characters), in NFKC, as written, case-folded or upper-cased, reduced to its
Unicode TR39 skeleton (:func:`skeleton`), white space runs as one space, trimmed.  Two names
that share a key read the same to a reader, and so do two names linked by a chain of
such names.

The names of the team files, each where it is written (:class:`ShownName`), give located
problems: :func:`name_character_problems` one name at a time, :func:`lookalike_problems`
across all the teams.
"""
from __future__ import annotations

import functools
import re
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import unicodedata2
from confusable_homoglyphs.utils import load as load_homoglyph_data

from scorer.core.errors import Problem

#: The Unicode version of :mod:`unicodedata2` and of the confusables data (see the module).
UNICODE_VERSION = "15.1.0"

#: General categories refused in a name -> what such a character is (for the message).
REFUSED_CATEGORIES = {
    "Cc": "a control character",
    "Cf": "an invisible formatting character (zero-width, joiner, bidirectional control)",
    "Cs": "a surrogate, which is not a character",
    "Co": "a private-use character, which has no standard glyph",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
}

#: The default-ignorable code points (Unicode's DerivedCoreProperties.txt,
#: Default_Ignorable_Code_Point) of categories other than Cc/Cf/Cn, less the variation
#: selectors: letters and marks that render as nothing.
INVISIBLE_LETTERS = re.compile("[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180d\u180f\u3164\uffa0]")
VARIATION_SELECTORS = re.compile("[\ufe00-\ufe0f\U000e0100-\U000e01ef]")
#: White space, and the blank glyph that reads as a space.
_SPACES = re.compile("[\\s\u2800]+")


@dataclass(frozen=True)
class BadCharacter:
    """A character a name may not hold: its position (0-based) and why."""

    index: int
    char: str
    why: str

    @property
    def described(self) -> str:
        """``U+200B ZERO WIDTH SPACE (an invisible formatting character ...)``."""
        return f"{code_point(self.char)} ({self.why})"


def code_point(char: str) -> str:
    """``U+200B ZERO WIDTH SPACE``; a character without a name gets its category's label
    (``U+0007 <control>``, ``U+FFFF <noncharacter>``, ``U+D800 <surrogate>``)."""
    name = unicodedata2.name(char, None)
    if name is None:
        category = unicodedata2.category(char)
        name = ("<noncharacter>" if is_noncharacter(char) else
                {"Cc": "<control>", "Cs": "<surrogate>", "Co": "<private-use>"}.get(category, "<unassigned>"))
    return f"U+{ord(char):04X} {name}"


def is_noncharacter(char: str) -> bool:
    """One of the 66 code points Unicode reserves as never being characters: U+FDD0-U+FDEF
    and the last two of every plane (U+FFFE, U+FFFF, U+1FFFE ...)."""
    point = ord(char)
    return 0xFDD0 <= point <= 0xFDEF or point & 0xFFFE == 0xFFFE


def _why_refused(char: str) -> str | None:
    category = unicodedata2.category(char)
    if category in REFUSED_CATEGORIES:
        return REFUSED_CATEGORIES[category]
    if category == "Cn":
        return "a noncharacter" if is_noncharacter(char) else f"not assigned in Unicode {UNICODE_VERSION}"
    if INVISIBLE_LETTERS.fullmatch(char):
        return "an invisible character (default-ignorable)"
    return None


def bad_characters(name: str, most: int = 3) -> list[BadCharacter]:
    """The first ``most`` distinct characters of ``name`` that a name may not hold (see the module)."""
    found: dict[str, BadCharacter] = {}
    for index, char in enumerate(name):
        if char not in found and (why := _why_refused(char)) is not None:
            found[char] = BadCharacter(index, char, why)
            if len(found) == most:
                break
    return list(found.values())


def has_visible(name: str) -> bool:
    """Whether ``name`` holds a character other than white space, the braille blank,
    variation selectors and the characters :func:`bad_characters` refuses."""
    return any(not _SPACES.fullmatch(char) and not VARIATION_SELECTORS.fullmatch(char) and _why_refused(char) is None
               for char in name)


@functools.cache
def _prototypes() -> dict[str, str]:
    """Character -> its TR39 prototype (only the characters that have another one).

    confusable-homoglyphs ships Unicode's ``confusables.txt`` as pairs listed both ways
    (``Н`` -> ``[H]``, ``H`` -> ``[Ｈ, ℋ, ..., Н, ...]``; right-to-left characters wrapped in
    U+200E, removed here).  In that file every source maps to one prototype and no
    prototype maps further, so each class is a star: the prototype is the member of
    several characters, else the one listed with several members, else (a class of two
    single characters, whose direction the pairs do not keep) the one NFKC keeps, then the
    smaller code point.  The classes, and so which names share a skeleton, are the same
    either way."""
    def plain(text: str) -> str:
        return text.replace("\u200e", "").replace("\u200f", "")
    partners = {plain(k): [plain(e["c"]) for e in v] for k, v in load_homoglyph_data("confusables.json").items()}
    out = {}
    for char, others in partners.items():
        if len(char) != 1 or len(others) != 1:
            continue  # a sequence or a character listed with several: a prototype
        other = others[0]
        if len(other) > 1 or len(partners.get(other, ())) > 1 or _tie_order(other) < _tie_order(char):
            out[char] = other
    return out


def _tie_order(char: str) -> tuple[bool, str]:
    return unicodedata2.normalize("NFKC", char) != char, char


def skeleton(text: str) -> str:
    """The TR39 skeleton of ``text``: NFD, each character replaced by its prototype, NFD."""
    prototypes = _prototypes()
    decomposed = unicodedata2.normalize("NFD", text)
    return unicodedata2.normalize("NFD", "".join(prototypes.get(c, c) for c in decomposed))


def lookalike_keys(name: str) -> tuple[str, str, str]:
    """Three keys under which names read the same (see the module): the skeleton of the
    name as written, of the case-folded name and of the upper-cased name.  None is enough
    on its own, as case and the prototypes do not commute: ``"HeIix"`` (a capital I) and
    ``"Helix"`` share only the first (capital I is a look-alike of small l, but folded it
    is a small i and upper-cased the l is a capital L); ``"Нelix"`` (a Cyrillic capital
    En) and ``"Helix"`` only the last (folded, the Cyrillic small en is a look-alike of a
    small capital H, not of h), ``"ν"`` (Greek nu) and ``"v"`` only the second (the
    capital Nu is an N).  The characters :func:`bad_characters` refuses are left out, so
    that a refused name is also told whom it imitates; every key is empty for a name with
    nothing visible."""
    shown = "".join(c for c in VARIATION_SELECTORS.sub("", name) if _why_refused(c) is None)
    text = unicodedata2.normalize("NFKC", shown)
    return _spaced(skeleton(text)), _spaced(skeleton(text.casefold())), _spaced(skeleton(text.upper()))


def _spaced(text: str) -> str:
    """White space runs as one space, trimmed."""
    return _SPACES.sub(" ", text).strip()


@dataclass(frozen=True)
class ShownName:
    """A display name as a team file gives it, where (for the look-alike check across teams)."""

    kind: str      # "team" or "system"
    owner: str     # the team id, or <team>/<system>
    name: str
    file: str
    line: int | None
    pointer: str   # its TOML path: name, systems[1].name


def name_character_problems(shown: ShownName) -> list[Problem]:
    """A name holding characters a name may not hold (:func:`bad_characters`: one located
    problem naming each such code point), or nothing visible (:func:`has_visible`)."""
    bad = bad_characters(shown.name)
    if bad:
        return [Problem(code="name-character", file=shown.file, line=shown.line, pointer=shown.pointer,
                        message=f"{shown.pointer}: the {shown.kind} name holds {c.described} at character {c.index + 1}",
                        fix="write the name with visible characters only (no control, zero-width, "
                            "bidirectional or private-use characters)") for c in bad]
    if not has_visible(shown.name):
        return [Problem(code="name-invisible", file=shown.file, line=shown.line, pointer=shown.pointer,
                        message=f"{shown.pointer}: the {shown.kind} name {shown.name!r} shows nothing",
                        fix=f"give the {shown.kind} a name with visible characters")]
    return []


def lookalike_problems(shown: list[ShownName]) -> list[Problem]:
    """Team names (and, separately, system names, which pages show without their team)
    that read the same: linked by a shared :func:`lookalike_keys`
    key, directly or through others; one problem at each, naming the others."""
    groups = _linked(shown, lambda entry: [(entry.kind, key) for key in lookalike_keys(entry.name) if key])
    problems = []
    for same in groups:
        for entry in same:
            others = [o for o in same if o is not entry]
            named = "; ".join(f"{o.kind} {o.owner} ({Path(o.file).name}, {o.pointer}) is named {o.name!r}"
                              for o in others)
            unusual = sorted({c for c in entry.name if not c.isascii()} - {c for o in others for c in o.name})
            holds = f" (it holds {', '.join(map(code_point, unusual[:3]))})" if unusual else ""
            problems.append(Problem(
                code="lookalike-name", file=entry.file, line=entry.line, pointer=entry.pointer,
                message=f"{entry.pointer}: the {entry.kind} name {entry.name!r}{holds} reads the same as another "
                        f"one once case, compatibility forms and look-alike characters are set aside: {named}",
                fix=f"give the {entry.kind} a name that differs in more than case or look-alike characters"))
    return problems


def _linked(items: list, keys: Callable[[Any], Iterable[Hashable]]) -> list[list]:
    """The groups of two or more ``items`` linked by sharing one of their ``keys(item)``,
    directly or through other items (union-find), in the items' order."""
    parent = list(range(len(items)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first: dict = {}
    for i, item in enumerate(items):
        for key in keys(item):
            parent[root(i)] = root(first.setdefault(key, i))
    groups: dict[int, list] = {}
    for i, item in enumerate(items):
        groups.setdefault(root(i), []).append(item)
    return [group for group in groups.values() if len(group) > 1]
