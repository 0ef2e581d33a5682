"""Measures computed through the measure registry: a measure's name leads to the function
that computes it.

As in ``ir_measures`` (a measure -> its provider) and ranx (a wrapper -> its kernel), the
evaluators do not choose measure functions themselves: for the measures they report, in the
flavor and edition of the evaluation, they ask :func:`bound` for the one call that computes
them, the :class:`~scorer.measures.registry.Kernel` each entry of
:data:`~scorer.measures.registry.MEASURES` names (its function of ``scorer.measures`` and
its fixed ``arguments``), call it with their inputs, and take each measure as its
``output`` of the result.  Measures that one call computes together (the three factoid
scores of a question, the ten flat Task A measures) share it: it is called once.  A kernel
with a batch form (the official snippet measures) gives it too (:meth:`Bound.many`): the
evaluator computes the questions it qualifies for at once, the others one at a time.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from scorer.measures.registry import MEASURES, Kernel, Measure


def kernel(name: str, flavor: str, edition: int) -> Kernel:
    """The kernel of measure ``name`` that applies in ``flavor`` and ``edition`` (the
    registry gives exactly one; anything else is a bug of the registry)."""
    found = [k for k in MEASURES[name].kernels
             if flavor in k.flavors and (k.editions is None or edition in k.editions)]
    if len(found) != 1:
        raise AssertionError(f"{name} has {len(found)} kernels for flavor {flavor}, edition {edition}")
    return found[0]


def pick(value: Any, output: tuple[str | int, ...]) -> Any:
    """``value`` followed along ``output``: an index of a sequence, a key of a dict, the
    attribute of a record (``counts.answered_right``); ``()`` is the value itself."""
    for step in output:
        value = getattr(value, step) if isinstance(step, str) and type(value) is not dict else value[step]
    return value


@dataclass(frozen=True)
class Bound:
    """The one call that computes ``names``: ``function`` with the kernels' fixed
    ``arguments`` added to the evaluator's inputs (:attr:`call`); measure ``names[i]`` is
    ``outputs[i]`` of its result (:func:`pick`).  ``batch``: the kernels' batch form, if
    any (:meth:`many`)."""

    function: Callable[..., Any]
    arguments: dict[str, Any]
    names: tuple[str, ...]
    outputs: tuple[tuple[str | int, ...], ...]
    batch: Callable[..., Any] | None = None
    #: ``function`` with ``arguments`` bound (the function itself when there are none):
    #: what an evaluator calls once per question.
    call: Callable[..., Any] = field(init=False, repr=False, compare=False)
    #: The inputs -> the measures' values in the order of ``names``: :attr:`call` itself
    #: where the outputs are the indexes 0, 1, ... of its result (a kernel that returns
    #: the tuple of its measures, such as the factoid and list scores of a question),
    #: else :attr:`call` then :meth:`values`.  What an evaluator calls once per question.
    scores: Callable[..., tuple] = field(init=False, repr=False, compare=False)
    #: The inputs -> the value of the one measure of a call that computes one: :attr:`call`
    #: itself where the measure is its result (output ``()``), else :attr:`call` then
    #: :func:`pick`.  What an evaluator calls once per question for a single measure.
    value: Callable[..., Any] = field(init=False, repr=False, compare=False)
    #: ``"value"``: one measure, the result itself; ``"tuple"``: the measures are the
    #: result's items in order (when it is a tuple of as many); ``"pick"``: neither.
    _shape: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        n = len(self.outputs)
        object.__setattr__(self, "call", partial(self.function, **self.arguments) if self.arguments else self.function)
        object.__setattr__(self, "_shape", "value" if self.outputs == ((),) else
                           "tuple" if self.outputs == tuple((i,) for i in range(n)) else "pick")
        object.__setattr__(self, "scores", self.call if self._shape == "tuple" else self._scores)
        object.__setattr__(self, "value", self.call if self._shape == "value" else self._value)

    def _scores(self, *inputs: Any, **named: Any) -> tuple:
        return self.values(self.call(*inputs, **named))

    def _value(self, *inputs: Any, **named: Any) -> Any:
        if len(self.outputs) != 1:
            raise AssertionError(f"{', '.join(self.names)} are not one measure")
        return pick(self.call(*inputs, **named), self.outputs[0])

    def __call__(self, *inputs: Any, **named: Any) -> Any:
        """The function's result on the evaluator's inputs."""
        return self.call(*inputs, **named)

    def values(self, result: Any) -> tuple:
        """The measures' values in ``result``, in the order of ``names`` (``result`` itself
        when it is the tuple of them: the outputs are its indexes in order)."""
        shape = self._shape
        if shape == "tuple" and type(result) is tuple and len(result) == len(self.outputs):
            return result
        if shape == "value":
            return (result,)
        return tuple(pick(result, output) for output in self.outputs)

    def many(self, *inputs: Any, **named: Any) -> tuple[Any, list[tuple | None]]:
        """``batch`` (with ``arguments``) on the inputs of many questions: its result and,
        for each question, the measures' values in the order of ``names`` (:meth:`values`
        of its item of the result's ``measures``), None for a question the batch leaves to
        :attr:`call`."""
        if self.batch is None:
            raise AssertionError(f"{', '.join(self.names)} have no batch form")
        result = self.batch(*inputs, **self.arguments, **named)
        if self._shape == "tuple":  # each item the tuple of the measures, as :attr:`scores` takes them
            return result, result.measures
        return result, [None if r is None else self.values(r) for r in result.measures]

    def measures(self, result: Any) -> dict[str, Any]:
        """Measure name -> its value in ``result``."""
        return dict(zip(self.names, self.values(result)))


def bound(names: Iterable[str], flavor: str, edition: int) -> Bound:
    """The call that computes every measure of ``names`` in ``flavor`` and ``edition``:
    their kernels must name the same function and fixed arguments (an evaluator asking
    for measures that no one call computes is a bug).  Kept while the registry's entries
    of ``names`` stay equal (an evaluation binds the same few calls every time)."""
    names = tuple(names)
    key = (names, flavor, edition)
    kept = _BOUND.get(key)
    if kept is not None and list(map(MEASURES.get, names)) == list(kept[0]):
        return kept[1]
    kernels = [kernel(name, flavor, edition) for name in names]
    calls = {(k.function, k.arguments, k.batch) for k in kernels}
    if len(calls) != 1:
        raise AssertionError(f"{', '.join(names)} are not computed by one call in flavor {flavor}, edition {edition}")
    first = kernels[0]
    made = Bound(first.function, dict(first.arguments), names, tuple(k.output for k in kernels), first.batch)
    _BOUND[key] = (tuple(MEASURES[name] for name in names), made)
    return made


#: (names, flavor, edition) -> (the registry entries of the names, their call): what
#: :func:`bound` made, for as long as the registry's entries stay equal to those.
_BOUND: dict[tuple[tuple[str, ...], str, int], tuple[tuple[Measure, ...], Bound]] = {}


__all__ = ["Bound", "bound", "kernel", "pick"]
