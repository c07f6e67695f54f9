"""A3's weighted medians of latency bags with some classes of pairs left out (the rank stability's, scoring B3).

Bags are runs of one array of pairs, sorted by latency inside each bag. A query asks for one bag's median
without the pairs of some classes (a contributor, a group, a cell), each class a term with a sign, so that
"this contributor, this group, but not that cell twice" is three terms. The running weight of the bag less the
weight left out is non-decreasing in the position, so its median is the first position where it reaches half
of what remains.

Leaving out R of a bag's weight moves its median only between the positions where the bag's own running weight
reaches half of what remains and that plus R. Only the pairs inside that window, per bag over all its queries,
are keyed for lookups; the weight a class has before the window is one count over the pairs. So the cost is a
few passes over the pairs, however many queries, and a sort of the window's pairs alone.

Pure: numpy, no Django.
"""

from dataclasses import dataclass

import numpy as np

from scoring.scorecard import stable_order_by
from scoring.shapes import BoolArray, FloatArray, IntArray


@dataclass(frozen=True)
class Removal:
    """The terms of every query: term i leaves out, from query[i]'s bag, the pairs of class code[i] of kind
    kind[i] (an index into the classes given), counted sign[i] times."""

    query: IntArray
    kind: IntArray
    code: IntArray
    sign: IntArray


def reduced_medians(
    values: FloatArray,
    weights: IntArray,
    bounds: IntArray,
    query_bag: IntArray,
    removal: Removal,
    classes: tuple[IntArray, ...],
) -> FloatArray:
    """(Q,) A3's median of bag query_bag[q] (pairs bounds[b]:bounds[b+1], latency ascending in `values`) without
    the pairs its terms leave out; NaN where no weight remains.

    classes[k] is each pair's code of class kind k (-1 for none); a class's pairs lie in one bag, the bag of the
    queries that name it. A query's terms must leave out each pair at most once in all (signs included): the
    weight left out before a position is then between 0 and the total left out, which is what bounds the window.
    """
    queries = len(query_bag)
    running = np.zeros(len(weights) + 1, dtype=np.int64)
    np.cumsum(weights, out=running[1:])
    start, end = bounds[query_bag], bounds[query_bag + 1]
    # Every code a pair or a term names, per kind, so that each kind's keys keep to their own range.
    sizes = [
        1 + max(int(c.max(initial=-1)), int(removal.code[removal.kind == kind].max(initial=-1)))
        for kind, c in enumerate(classes)
    ]

    def class_weights(mask: BoolArray | slice) -> list[IntArray]:
        """Each kind's weight per code, of the pairs in `mask`."""
        out = []
        for c, size in zip(classes, sizes, strict=True):
            codes, counted = c[mask], weights[mask]
            if len(codes) and codes.min() < 0:
                coded = codes >= 0
                codes, counted = codes[coded], counted[coded]
            out.append(np.bincount(codes, weights=counted, minlength=size).astype(np.int64))
        return out

    left_out = _per_query(removal, queries, class_weights(slice(None)))
    kept = running[end] - running[start] - left_out
    target = (kept + 1) // 2
    weighed = kept > 0
    # The median lies where the bag's own running weight first reaches the target, or later by what is left out.
    lo = np.clip(np.searchsorted(running, running[start] + target, side="left"), start + 1, end)
    hi = np.clip(np.searchsorted(running, running[start] + target + left_out, side="left"), lo, end)
    lo, hi = np.where(weighed, lo, end), np.where(weighed, hi, end)

    bags = len(bounds) - 1
    window_start = np.full(bags, len(weights), dtype=np.int64)
    window_end = np.zeros(bags, dtype=np.int64)
    np.minimum.at(window_start, query_bag[weighed], lo[weighed] - 1)
    np.maximum.at(window_end, query_bag[weighed], hi[weighed])
    window_start = np.minimum(window_start, window_end)
    # Bag by bag (no array per pair): the pairs before each window, and the window's own.
    before_window: BoolArray | slice
    if bags == 1:
        before_window = slice(0, int(window_start[0]))
    else:
        before_window = np.zeros(len(weights), dtype=np.bool_)
        for first, window in zip(bounds[:-1].tolist(), window_start.tolist(), strict=True):
            before_window[first:window] = True
    in_window = np.concatenate(
        [np.arange(a, b, dtype=np.int64) for a, b in zip(window_start.tolist(), window_end.tolist(), strict=True)]
    )
    left_out_before_window = _per_query(removal, queries, class_weights(before_window))
    keyed = _WindowKeys.of(classes, sizes, in_window, weights)
    window_of_term = window_start[query_bag[removal.query]]

    def kept_before(at: IntArray) -> IntArray:
        inside = keyed.between(removal.kind, removal.code, window_of_term, at[removal.query])
        removed = left_out_before_window + np.bincount(removal.query, weights=removal.sign * inside, minlength=queries)
        return running[at] - running[start] - removed.astype(np.int64)

    while np.any(lo < hi):
        mid = (lo + hi) // 2
        reached = kept_before(mid) >= target
        hi = np.where(reached, mid, hi)
        lo = np.where(reached, lo, mid + 1)
    out = np.full(queries, np.nan)
    out[weighed] = values[lo[weighed] - 1]
    return out


def _per_query(removal: Removal, queries: int, per_class: list[IntArray]) -> IntArray:
    """Each query's signed sum over its terms of a per-class count."""
    term = np.zeros(len(removal.query), dtype=np.int64)
    for kind, counts in enumerate(per_class):
        mine = np.flatnonzero(removal.kind == kind)
        term[mine] = counts[removal.code[mine]]
    return np.bincount(removal.query, weights=removal.sign * term, minlength=queries).astype(np.int64)


@dataclass(frozen=True)
class _WindowKeys:
    """The window's pairs keyed (kind, code, position), sorted, with their running weights."""

    keys: IntArray
    running: IntArray
    first: IntArray  # (kinds,) the first key code of each kind
    stride: int

    @classmethod
    def of(cls, classes: tuple[IntArray, ...], sizes: list[int], pairs: IntArray, weights: IntArray) -> "_WindowKeys":
        stride = len(weights) + 1
        keys, ordered, first, offset = [], [], [], 0
        for codes_of_pairs, size in zip(classes, sizes, strict=True):
            codes = codes_of_pairs[pairs]
            mine = codes >= 0
            positions, codes = pairs[mine], codes[mine]
            # A stable sort by code keeps positions ascending within a code: the keys come out sorted.
            by_code = stable_order_by(codes, size)
            keys.append((offset + codes[by_code]) * stride + positions[by_code])
            ordered.append(weights[positions[by_code]])
            first.append(offset)
            offset += size
        running = np.zeros(sum(len(k) for k in keys) + 1, dtype=np.int64)
        np.cumsum(np.concatenate(ordered), out=running[1:])
        return cls(np.concatenate(keys).astype(np.int64), running, np.array(first, dtype=np.int64), stride)

    def between(self, kind: IntArray, code: IntArray, start: IntArray, end: IntArray) -> IntArray:
        """The weight of class (kind, code)'s pairs at positions start:end (both within the window)."""
        base = (self.first[kind] + code) * self.stride
        return (
            self.running[np.searchsorted(self.keys, base + end)]
            - self.running[np.searchsorted(self.keys, base + start)]
        )
