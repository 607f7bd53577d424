"""Brace structure of TVM's CUDA bodies: one statement a line, `{` ends a line, `}` starts one."""

from __future__ import annotations

from dataclasses import dataclass

import regex

from .errors import ReconstructError

# TVM prints every serial loop as `for (int v = 0; v < N; ++v) {`.
_LOOP = regex.compile(
    r"^[ ]*for \(int (?P<var>\w+) = 0; (?P=var) < (?P<extent>\d+); \+\+(?P=var)\) \{$", regex.M
)
_ANY_FOR = regex.compile(r"\bfor \(")
_INDENT = regex.compile(r"[ ]*")


@dataclass(frozen=True)
class Loop:
    """A `for` loop: its text is text[start:end] (whole lines), its body text[open + 1:close]."""

    var: str
    extent: int
    start: int
    open: int
    close: int
    end: int

    def contains(self, pos: int) -> bool:
        """Whether pos lies inside the loop's braces."""
        return self.open < pos < self.close


def matching_brace(text: str, open_pos: int) -> int:
    """Offset of the `}` closing the `{` at open_pos (TVM puts no braces in strings/comments)."""
    depth = 0
    for i in range(open_pos, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    raise ReconstructError(f"unbalanced braces: no '}}' closes the '{{' at offset {open_pos}")


def depth_at(text: str, pos: int) -> int:
    """Brace nesting depth at pos."""
    return text.count("{", 0, pos) - text.count("}", 0, pos)


def line_span(text: str, pos: int) -> tuple[int, int]:
    """Start of the line holding pos and the offset just past its newline."""
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return start, len(text) if end < 0 else end + 1


def find_loops(text: str) -> list[Loop]:
    """Every `for` loop in text, in order of appearance; any other loop header is an error."""
    loops = []
    for m in _LOOP.finditer(text):
        open_pos = m.end() - 1
        close = matching_brace(text, open_pos)
        loops.append(Loop(m["var"], int(m["extent"]), m.start(), open_pos, close,
                          line_span(text, close)[1]))
    if len(loops) != len(_ANY_FOR.findall(text)):
        odd = next(ln for ln in text.splitlines() if _ANY_FOR.search(ln) and not _LOOP.match(ln))
        raise ReconstructError("unrecognised loop header (expected `for (int v = 0; v < N; ++v) "
                               f"{{`): {odd.strip()}")
    return loops


def enclosing_loops(loops: list[Loop], pos: int) -> list[Loop]:
    """The loops whose body holds pos, outermost first."""
    return [loop for loop in loops if loop.contains(pos)]


def indent_of(text: str, pos: int) -> str:
    """The leading spaces of the line holding pos."""
    return _INDENT.match(text, line_span(text, pos)[0]).group()


def reindent(text: str, old: str, new: str) -> str:
    """Replace the leading `old` indentation of every line by `new`."""
    return "".join(new + ln[len(old):] if ln.startswith(old) else ln
                   for ln in text.splitlines(keepends=True))
