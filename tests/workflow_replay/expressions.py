"""GitHub Actions expressions (``${{ ... }}``), evaluated as GitHub documents them.

Literals (``null``, booleans, numbers, ``'strings'`` with ``''`` for a quote), property
access (``a.b``, ``a['b']``), the operators ``! < <= > >= == != && ||`` and parentheses,
and the functions ``contains``, ``startsWith``, ``endsWith``, ``format``, ``join``,
``toJSON``, ``fromJSON``, ``hashFiles``, ``success``, ``always``, ``failure`` and
``cancelled``.  Comparisons follow GitHub: operands of different types are compared as
numbers, strings case-insensitively; ``&&`` and ``||`` give an operand, not a boolean.

Stricter than GitHub, on purpose: a property that is not there (an output no step wrote,
a field the event payload lacks, an unknown context) raises :class:`ExpressionError`
instead of giving ``null``, except under the contexts listed in ``lenient`` (``secrets``
and ``vars``, which are empty unless configured).  Anything this module does not
implement (the ``*`` filter, an unknown function) raises too.
"""
from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

TOKEN = re.compile(r"""\s*(?:
    (?P<number>0x[0-9a-fA-F]+|-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<string>'(?:[^']|'')*')
  | (?P<op>&&|\|\||==|!=|<=|>=|[<>!()\[\].,*])
  | (?P<name>[A-Za-z_][A-Za-z0-9_-]*)
)""", re.VERBOSE)


class ExpressionError(ValueError):
    """An expression that cannot be evaluated here: the message says what and where."""


@dataclass
class Scope:
    """What an expression can see: its contexts (name -> value), the contexts read
    leniently (a missing property is ``null``), the job status the status functions
    report (``success``, ``failure`` or ``cancelled``) and the workspace ``hashFiles``
    reads."""

    contexts: dict
    lenient: frozenset = frozenset({"secrets", "vars"})
    status: str = "success"
    workspace: Path | None = None


def tokens(text: str) -> list[tuple[str, str]]:
    """The tokens of expression ``text`` as (kind, text)."""
    out, i = [], 0
    while i < len(text):
        if text[i:].strip() == "":
            break
        found = TOKEN.match(text, i)
        if not found:
            raise ExpressionError(f"cannot read the expression {text!r} at {text[i:]!r}")
        kind = found.lastgroup
        out.append((kind, found.group(kind)))
        i = found.end()
    return out


class _Parser:
    """A recursive-descent parser giving nested tuples: ("lit", v), ("ctx", name),
    ("get", obj, key), ("call", name, args), ("not", x), ("op", op, a, b)."""

    LEVELS = [("||",), ("&&",), ("==", "!="), ("<", "<=", ">", ">=")]

    def __init__(self, text: str):
        self.text, self.items, self.i = text, tokens(text), 0

    def peek(self) -> tuple[str, str] | None:
        return self.items[self.i] if self.i < len(self.items) else None

    def take(self, value: str | None = None) -> tuple[str, str]:
        item = self.peek()
        if item is None or (value is not None and item[1] != value):
            raise ExpressionError(f"expected {value or 'more'} in {self.text!r}")
        self.i += 1
        return item

    def parse(self):
        tree = self.binary(0)
        if self.peek() is not None:
            raise ExpressionError(f"unexpected {self.peek()[1]!r} in {self.text!r}")
        return tree

    def binary(self, level: int):
        if level == len(self.LEVELS):
            return self.unary()
        left = self.binary(level + 1)
        while self.peek() is not None and self.peek()[0] == "op" and self.peek()[1] in self.LEVELS[level]:
            op = self.take()[1]
            left = ("op", op, left, self.binary(level + 1))
        return left

    def unary(self):
        if self.peek() == ("op", "!"):
            self.take()
            return ("not", self.unary())
        return self.postfix(self.primary())

    def primary(self):
        kind, text = self.take()
        if kind == "number":
            return ("lit", int(text, 16) if text.startswith("0x") else float(text))
        if kind == "string":
            return ("lit", text[1:-1].replace("''", "'"))
        if kind == "op" and text == "(":
            inner = self.binary(0)
            self.take(")")
            return inner
        if kind == "name":
            if text in ("true", "false"):
                return ("lit", text == "true")
            if text == "null":
                return ("lit", None)
            if self.peek() == ("op", "("):
                self.take("(")
                args = []
                while self.peek() != ("op", ")"):
                    args.append(self.binary(0))
                    if self.peek() == ("op", ","):
                        self.take(",")
                self.take(")")
                return ("call", text, args)
            return ("ctx", text)
        raise ExpressionError(f"unexpected {text!r} in {self.text!r}")

    def postfix(self, node):
        while self.peek() in (("op", "."), ("op", "[")):
            if self.take()[1] == ".":
                kind, name = self.take()
                if kind == "op" and name == "*":
                    raise ExpressionError(f"the object filter .* is not modelled ({self.text!r})")
                if kind != "name":
                    raise ExpressionError(f"a property name is expected after '.' in {self.text!r}")
                node = ("get", node, ("lit", name))
            else:
                key = self.binary(0)
                self.take("]")
                node = ("get", node, key)
        return node


def to_number(value) -> float:
    """GitHub's conversion to a number: null 0, booleans 1/0, a numeric string its value
    ('' is 0), anything else NaN."""
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        if text == "":
            return 0.0
        try:
            return float(int(text, 16)) if text.lower().startswith("0x") else float(text)
        except ValueError:
            return math.nan
    return math.nan


def truthy(value) -> bool:
    """GitHub's truth: null, false, 0, NaN and '' are false; everything else (``{}`` too) true."""
    if isinstance(value, float) and math.isnan(value):
        return False
    return isinstance(value, (dict, list)) or value not in (None, False, 0, "")


def to_string(value) -> str:
    """How a value is written into text: null '', booleans true/false, whole numbers without
    a fraction; an object or array cannot be (use toJSON)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(int(value)) if float(value).is_integer() else repr(float(value))
    if isinstance(value, str):
        return value
    raise ExpressionError(f"an {type(value).__name__} cannot be written as text (use toJSON)")


def _compare(op: str, a, b) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        a, b = a.lower(), b.lower()
    elif isinstance(a, (dict, list)) or isinstance(b, (dict, list)):
        if op in ("==", "!="):
            return (a is b) == (op == "==")
        return False
    elif type(a) is not type(b) or a is None:
        a, b = to_number(a), to_number(b)
    return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]


def _format(template, *args) -> str:
    def field(found: re.Match) -> str:
        if found.group(0) in ("{{", "}}"):
            return found.group(0)[0]
        index = int(found.group(1))
        if index >= len(args):
            raise ExpressionError(f"format({template!r}) has no argument {index}")
        return to_string(args[index])
    return re.sub(r"\{\{|\}\}|\{(\d+)\}", field, to_string(template))


def _contains(search, item) -> bool:
    if isinstance(search, list):
        return any(_compare("==", element, item) for element in search)
    return to_string(item).lower() in to_string(search).lower()


def _hash_files(scope: Scope, *patterns) -> str:
    if scope.workspace is None:
        raise ExpressionError("hashFiles() is only available in steps")
    files = sorted({p for pattern in patterns for p in scope.workspace.glob(to_string(pattern)) if p.is_file()})
    if not files:
        return ""
    outer = hashlib.sha256()
    for path in files:
        outer.update(hashlib.sha256(path.read_bytes()).digest())
    return outer.hexdigest()


FUNCTIONS: dict[str, Callable] = {
    "contains": lambda scope, search, item: _contains(search, item),
    "startsWith": lambda scope, a, b: to_string(a).lower().startswith(to_string(b).lower()),
    "endsWith": lambda scope, a, b: to_string(a).lower().endswith(to_string(b).lower()),
    "format": lambda scope, template, *args: _format(template, *args),
    "join": lambda scope, items, sep=",": (to_string(sep).join(to_string(i) for i in items)
                                           if isinstance(items, list) else to_string(items)),
    "toJSON": lambda scope, value: json.dumps(value, indent=2),
    "fromJSON": lambda scope, text: json.loads(to_string(text)),
    "hashFiles": _hash_files,
    "success": lambda scope: scope.status == "success",
    "always": lambda scope: True,
    "failure": lambda scope: scope.status == "failure",
    "cancelled": lambda scope: scope.status == "cancelled",
}
STATUS_FUNCTIONS = ("success", "always", "failure", "cancelled")


def _evaluate(node, scope: Scope):
    kind = node[0]
    if kind == "lit":
        return node[1]
    if kind == "ctx":
        if node[1] not in scope.contexts:
            raise ExpressionError(f"the context {node[1]!r} is not available here "
                                  f"(available: {', '.join(sorted(scope.contexts))})")
        return scope.contexts[node[1]]
    if kind == "get":
        return _get(node, scope)
    if kind == "not":
        return not truthy(_evaluate(node[1], scope))
    if kind == "call":
        name, args = node[1], node[2]
        function = FUNCTIONS.get(name)
        if function is None:
            raise ExpressionError(f"the function {name}() is not modelled by the replay")
        return function(scope, *(_evaluate(a, scope) for a in args))
    op, left = node[1], _evaluate(node[2], scope)
    if op == "&&":
        return _evaluate(node[3], scope) if truthy(left) else left
    if op == "||":
        return left if truthy(left) else _evaluate(node[3], scope)
    return _compare(op, left, _evaluate(node[3], scope))


def _path_of(node) -> list:
    if node[0] == "ctx":
        return [node[1]]
    if node[0] == "get" and node[2][0] == "lit":
        inner = _path_of(node[1])
        return inner + [node[2][1]] if inner else []
    return []


def _get(node, scope: Scope):
    obj, key = _evaluate(node[1], scope), _evaluate(node[2], scope)
    path = _path_of(node)
    lenient = bool(path) and path[0] in scope.lenient
    if obj is None and lenient:
        return None
    if isinstance(obj, dict):
        if isinstance(key, str):
            found = next((k for k in obj if k.lower() == key.lower()), None)  # property names ignore case
            if found is not None:
                return obj[found]
        if lenient:
            return None
        shown = ".".join(str(p) for p in path) if path else f"[{key!r}]"
        raise ExpressionError(f"{shown} is not set (GitHub would give null here; keys: "
                              f"{', '.join(sorted(map(str, obj))) or 'none'})")
    if isinstance(obj, list) and isinstance(key, (int, float)) and 0 <= key < len(obj):
        return obj[int(key)]
    raise ExpressionError(f"cannot read {key!r} of {to_string(obj) if not isinstance(obj, (dict, list)) else obj!r}")


def evaluate(text: str, scope: Scope):
    """The value of expression ``text`` (without ``${{ }}``) in ``scope``."""
    return _evaluate(_Parser(text).parse(), scope)


def uses_status_function(text: str) -> bool:
    """Whether expression ``text`` calls success(), always(), failure() or cancelled()."""
    return any(kind == "name" and value in STATUS_FUNCTIONS for kind, value in tokens(text))


def condition(text, scope: Scope) -> bool:
    """An ``if:`` value (with or without ``${{ }}``): ``success() && (...)`` unless it
    calls a status function itself, as GitHub reads it."""
    if isinstance(text, bool):
        return text and scope.status == "success"
    source = str(text).strip()
    whole = re.fullmatch(r"\$\{\{(.*)\}\}", source, re.DOTALL)
    if whole and "${{" not in whole.group(1):
        source = whole.group(1)
    elif "${{" in source:
        return truthy(interpolate(source, scope))
    if not uses_status_function(source):
        source = f"success() && ({source})"
    return truthy(evaluate(source, scope))


def _spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each ``${{ ... }}`` in ``text``; a ``}}`` inside a string literal does not end one."""
    spans, i = [], 0
    while (start := text.find("${{", i)) >= 0:
        j, quoted = start + 3, False
        while j < len(text):
            if text[j] == "'":
                quoted = not quoted
            elif not quoted and text.startswith("}}", j):
                break
            j += 1
        else:
            raise ExpressionError(f"an expression is not closed with }}}} in {text!r}")
        spans.append((start, j + 2))
        i = j + 2
    return spans


def interpolate(value, scope: Scope):
    """``value`` with every ``${{ }}`` replaced; a string that is one expression keeps
    the expression's type; dicts and lists are interpolated item by item."""
    if isinstance(value, dict):
        return {k: interpolate(v, scope) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, scope) for v in value]
    if not isinstance(value, str) or "${{" not in value:
        return value
    spans = _spans(value)
    if len(spans) == 1 and spans[0] == (0, len(value)):
        return evaluate(value[3:-2], scope)
    out, last = [], 0
    for start, end in spans:
        out.append(value[last:start])
        out.append(to_string(evaluate(value[start + 3:end - 2], scope)))
        last = end
    return "".join(out + [value[last:]])
