"""A small safe evaluator for the integer index expressions TVM prints (no Python eval)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import regex

from .errors import ReconstructError

Env = Mapping[str, int]
Expr = Callable[[Env], int]

_TOKEN = regex.compile(
    r"\s*(?:(?P<num>\d+)|(?P<name>[A-Za-z_]\w*(?:\.[xyz])?)|(?P<op><<|>>|[-+*/%&|()]))"
)
# Casts TVM (and reconstructor.fragment_order) put on index terms, e.g. ((int)threadIdx.x); they
# do not change the value of the non-negative indices they cast.
_CASTS = frozenset({"int", "int64_t", "unsigned"})
# C precedence, loosest first; each level is left-associative.
_LEVELS = (("|",), ("&",), ("<<", ">>"), ("+", "-"), ("*", "/", "%"))


def _c_div(a: int, b: int) -> int:
    """C's `/`: truncates toward zero (Python's // floors)."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _c_mod(a: int, b: int) -> int:
    """C's `%`: the sign of the dividend."""
    return a - b * _c_div(a, b)


_BINARY: dict[str, Callable[[int, int], int]] = {
    "|": lambda a, b: a | b,
    "&": lambda a, b: a & b,
    "<<": lambda a, b: a << b,
    ">>": lambda a, b: a >> b,
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": _c_div,
    "%": _c_mod,
}


def _tokenize(text: str) -> list[tuple[str, str]]:
    tokens, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ReconstructError(f"index expression: cannot read {text[pos:pos + 20]!r} "
                                   f"in {text!r}")
        kind = m.lastgroup
        tokens.append((kind, m.group(kind)))
        pos = m.end()
    return tokens


class _Parser:
    """Recursive descent over the tokens, building closures."""

    def __init__(self, text: str) -> None:
        self.text, self.tokens, self.pos = text, _tokenize(text), 0

    def peek(self, offset: int = 0) -> str | None:
        i = self.pos + offset
        return self.tokens[i][1] if i < len(self.tokens) else None

    def take(self, expected: str | None = None) -> tuple[str, str]:
        if self.pos >= len(self.tokens) or (expected and self.tokens[self.pos][1] != expected):
            raise ReconstructError(f"index expression: expected {expected or 'more'} "
                                   f"in {self.text!r}")
        self.pos += 1
        return self.tokens[self.pos - 1]

    def parse(self) -> Expr:
        expr = self.binary(0)
        if self.pos != len(self.tokens):
            raise ReconstructError(f"index expression: trailing {self.peek()!r} in {self.text!r}")
        return expr

    def binary(self, level: int) -> Expr:
        if level == len(_LEVELS):
            return self.unary()
        left = self.binary(level + 1)
        while self.peek() in _LEVELS[level]:
            fn = _BINARY[self.take()[1]]
            right = self.binary(level + 1)
            left = lambda env, f=fn, a=left, b=right: f(a(env), b(env))  # noqa: E731
        return left

    def unary(self) -> Expr:
        if self.peek() == "-":
            self.take()
            inner = self.unary()
            return lambda env: -inner(env)
        if self.peek() == "(" and self.peek(1) in _CASTS and self.peek(2) == ")":
            self.pos += 3
            return self.unary()
        return self.primary()

    def primary(self) -> Expr:
        kind, value = self.take()
        if kind == "num":
            number = int(value)
            return lambda env: number
        if kind == "name":
            return lambda env: _lookup(env, value, self.text)
        if value == "(":
            inner = self.binary(0)
            self.take(")")
            return inner
        raise ReconstructError(f"index expression: unexpected {value!r} in {self.text!r}")


def _lookup(env: Env, name: str, text: str) -> int:
    try:
        return env[name]
    except KeyError:
        raise ReconstructError(f"index expression: no value for {name!r} in {text!r}") from None


def compile_int_expr(text: str) -> Expr:
    """Parse an index expression once; the result maps an environment to its C int value."""
    return _Parser(text).parse()


def identifiers(text: str) -> set[str]:
    """Names an index expression reads (threadIdx.x counts as one name; casts do not)."""
    return {v for k, v in _tokenize(text) if k == "name"} - _CASTS


def constant_term(text: str) -> int:
    """Value with every name set to 0: the constant offset of TVM's sum-of-terms indices."""
    return compile_int_expr(text)(dict.fromkeys(identifiers(text), 0))
