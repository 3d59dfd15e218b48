"""Close names among thousands: an index built once, then difflib on a few candidates.

``difflib.get_close_matches`` compares a word with every candidate, several
microseconds each: over a catalogue of 10,000 tools one unknown name took tens of
milliseconds. A :class:`NameIndex` maps each character trigram to the names that hold
it; a word's rarest trigrams pick the few names that share most of them, and only
those go through difflib. Small pools are scanned whole, as difflib alone would.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from itertools import chain, islice
from operator import itemgetter

__all__ = ["SCANNED_WHOLE", "NameIndex"]

#: Pools up to this size are compared name by name (the answer of difflib alone).
SCANNED_WHOLE = 64
#: Most postings one lookup counts: the rarest trigrams first, up to this many names.
_POSTINGS_BUDGET = 150
#: The budget of a first, quick look: enough when its names are close already.
_QUICK_BUDGET = 48
#: Names that share most trigrams with the word and go on to difflib.
_SHORTLIST = 8
#: Trigram similarity that makes a name close without asking difflib.
_SIMILAR = 0.5
#: Most names of a shortlist difflib is asked about (the most similar by trigrams).
_DIFFLIB_ASKS = 3
#: Words remembered per index (a model tends to repeat a wrong name).
_MEMO_SIZE = 1_024


def _trigrams(lowered: str) -> set[str]:
    padded = f"\x02{lowered}\x03"  # the ends count: a prefix or suffix typed right is a clue
    return {padded[i : i + 3] for i in range(len(padded) - 2)}


def scan(word: str, pool: Iterable[str], limit: int) -> list[str]:
    """Names in ``pool`` like ``word``: the same spelling ignoring case first, then difflib's."""
    import difflib  # only failures need it; keeps importing the package cheap

    pool = list(pool)
    lowered = word.lower()
    exact = [c for c in pool if c.lower() == lowered and c != word]
    fuzzy = difflib.get_close_matches(word, pool, n=limit, cutoff=0.6)
    return list(dict.fromkeys(exact + fuzzy))[:limit]


class NameIndex:
    """The names of one pool (tools, APIs, parameters), indexed for close matches.

    Args:
        names: the pool, in the order suggestions prefer on ties.
    """

    __slots__ = ("_gone", "_grams", "_longest", "_lowered", "_memo", "_name_grams", "_order", "_positions")

    def __init__(self, names: Iterable[str]) -> None:
        self._fill(names)

    def _fill(self, names: Iterable[str]) -> None:
        """Index ``names`` afresh (what was indexed before is dropped)."""
        #: Every name ever added, by position; a removed one stays (its position is in ``_gone``).
        self._order: list[str] = list(dict.fromkeys(names))
        self._positions = {name: position for position, name in enumerate(self._order)}
        self._gone: set[int] = set()
        self._longest = max(map(len, self._order), default=0)
        self._memo: dict[tuple[str, int], list[str]] = {}
        self._lowered: dict[str, list[str]] = {}
        self._grams: dict[str, list[int]] = {}
        #: The trigrams of each name, by position (to rank a shortlist by all it shares).
        self._name_grams: list[set[str]] = []
        if len(self._order) > SCANNED_WHOLE:
            for position, name in enumerate(self._order):
                self._index(position, name)

    @property
    def names(self) -> tuple[str, ...]:
        """The pool, in the order suggestions prefer on ties."""
        if not self._gone:
            return tuple(self._order)
        return tuple(name for position, name in enumerate(self._order) if position not in self._gone)

    def _index(self, position: int, name: str) -> None:
        """Index the trigrams and the lowered spelling of the name at ``position``."""
        lowered = name.lower()
        self._lowered.setdefault(lowered, []).append(name)
        grams = _trigrams(lowered)
        self._name_grams.append(grams)
        for gram in grams:
            self._grams.setdefault(gram, []).append(position)

    def add(self, name: str) -> None:
        """Put ``name`` in the pool (last), indexing only it: a catalogue gains one tool at a time."""
        position = self._positions.get(name)
        if position is not None and position not in self._gone:
            return
        self._memo.clear()
        if position is not None:  # back after a removal: it keeps its old place
            self._gone.discard(position)
            if self._name_grams:
                self._lowered.setdefault(name.lower(), []).append(name)
            return
        position = self._positions[name] = len(self._order)
        self._order.append(name)
        self._longest = max(self._longest, len(name))
        if self._grams or self._name_grams:
            self._index(position, name)
        elif len(self) > SCANNED_WHOLE:  # the pool outgrew a scan: index it whole, once
            for at, known in enumerate(self._order):
                self._index(at, known)
                if at in self._gone:
                    self._lowered[known.lower()].remove(known)

    def discard(self, name: str) -> None:
        """Take ``name`` out of the pool, if it is there; its postings stay, skipped from now on."""
        position = self._positions.get(name)
        if position is None or position in self._gone:
            return
        self._memo.clear()
        self._gone.add(position)
        same = self._lowered.get(name.lower())
        if same is not None and name in same:
            same.remove(name)
        if len(self._gone) > max(SCANNED_WHOLE, len(self)):  # mostly removed names: start afresh
            self._fill(self.names)

    def __len__(self) -> int:
        return len(self._order) - len(self._gone)

    def close(self, word: str, limit: int = 3) -> list[str]:
        """Up to ``limit`` names like ``word``: the same spelling ignoring case first, then similar ones."""
        # difflib's ratio reaches its 0.6 cutoff only when the word is at most about
        # twice as long as a name: a longer one matches nothing (and would be slow).
        if len(word) > 3 * self._longest:
            return []
        found = self._memo.get((word, limit))
        if found is None:
            found = self._lookup(word, limit)
            if len(self._memo) >= _MEMO_SIZE:
                self._memo.clear()
            if len(word) <= 256:  # a long word is not kept alive by the memo
                self._memo[(word, limit)] = found
        return list(found)

    def _lookup(self, word: str, limit: int) -> list[str]:
        if len(self) <= SCANNED_WHOLE:
            return scan(word, self.names, limit)
        lowered = word.lower()
        exact = [n for n in self._lowered.get(lowered, ()) if n != word]
        grams = _trigrams(lowered)
        # Sorted first: postings of one length then come in the same order in every process.
        postings = sorted(filter(None, map(self._grams.get, sorted(grams))), key=len)
        ranked: list[tuple[str, float]] = []
        if postings and len(postings[0]) <= _QUICK_BUDGET:
            # The rarest trigrams alone first: enough when they find names close already.
            ranked = self._shortlist(grams, postings, _QUICK_BUDGET)
        if sum(similarity >= _SIMILAR for _, similarity in ranked) < limit:
            ranked = self._shortlist(grams, postings, _POSTINGS_BUDGET)
        return list(dict.fromkeys(exact + _similar(word, ranked, limit)))[:limit]

    def _shortlist(self, grams: set[str], postings: list[list[int]], budget: int) -> list[tuple[str, float]]:
        """``(name, trigram similarity)`` of the few names sharing most of the word's rarest trigrams.

        Args:
            grams: the word's trigrams.
            postings: the positions of the names holding each of them, rarest first.
            budget: most positions counted.

        Most similar first: ``2 * shared / (trigrams of the word + of the name)``.
        """
        chosen: list[list[int]] = []
        total = 0
        for found in postings:
            if total + len(found) > budget:
                if not chosen:  # even the rarest trigram is everywhere: count a part of it
                    chosen.append(found[:budget])
                break
            chosen.append(found)
            total += len(found)
        ranked = []
        for position in self._most_shared(chosen):
            theirs = self._name_grams[position]
            ranked.append((self._order[position], 2 * len(grams & theirs) / (len(grams) + len(theirs))))
        # Ranked by all the trigrams they share (the count above saw only the rare ones).
        ranked.sort(key=itemgetter(1), reverse=True)
        return ranked

    def _most_shared(self, chosen: list[list[int]]) -> list[int]:
        """The positions of the :data:`_SHORTLIST` names in most of ``chosen``, first seen first on ties.

        What ``Counter(...).most_common()`` would give, without counting or sorting
        where the answer is known: one list, or no name in two of them.
        """
        gone = self._gone
        if len(chosen) == 1:  # every name counted once: the first ones kept
            return [p for p in chosen[0][: _SHORTLIST + len(gone)] if p not in gone][:_SHORTLIST]
        counts = Counter(chain.from_iterable(chosen))
        if gone:
            for position in gone.intersection(counts):
                del counts[position]
        if max(counts.values(), default=1) == 1:
            return list(islice(counts, _SHORTLIST))  # each name once: in the order first seen
        # sorted() is stable (ties keep the order first seen) and runs in C, unlike most_common().
        return sorted(counts, key=counts.__getitem__, reverse=True)[:_SHORTLIST]


def _similar(word: str, ranked: list[tuple[str, float]], limit: int) -> list[str]:
    """The first ``limit`` names of ``ranked`` close to ``word``.

    Close: half their trigrams shared, else difflib's ratio at its 0.6 cutoff (asked
    only then, and of the first few).
    """
    found = []
    asked = 0
    for name, similarity in ranked:
        if similarity < _SIMILAR:
            if asked == _DIFFLIB_ASKS:
                break
            asked += 1
            if not _close_by_difflib(name, word):
                continue
        found.append(name)
        if len(found) == limit:
            break
    return found


def _close_by_difflib(name: str, word: str) -> bool:
    """``difflib.SequenceMatcher(None, name, word).ratio() >= 0.6``, as difflib would answer it.

    difflib's matching blocks (the longest common block, then the same left and right
    of it) are found here with ``str.find`` instead of its per-character loops, and
    counted only until the answer is known: several times faster for names. A word
    of 200 characters or more is left to difflib itself (it then treats frequent
    characters as junk).
    """
    total = len(name) + len(word)
    if not total:
        return True  # difflib's ratio of two empty strings is 1.0
    if 2.0 * min(len(name), len(word)) / total < 0.6:  # difflib's real_quick_ratio, as it computes it
        return False
    if len(word) >= 200:
        import difflib

        return difflib.SequenceMatcher(None, name, word).ratio() >= 0.6
    needed = math.ceil(0.3 * total)  # the fewest matched characters the ratio accepts, as difflib computes it
    while needed > 0 and 2.0 * (needed - 1) / total >= 0.6:
        needed -= 1
    while 2.0 * needed / total < 0.6:
        needed += 1
    return _matched(name, word, needed) >= needed


def _matched(a: str, b: str, enough: int) -> int:
    """The characters of ``a`` and ``b`` in difflib's matching blocks (no junk), counted up to ``enough``.

    The count stops once it reaches ``enough``, or once the blocks still to look in
    could not bring it there (then less than ``enough`` is returned).
    """
    matched = 0
    queue = [(0, len(a), 0, len(b))]
    while queue:
        if matched + sum(min(ahi - alo, bhi - blo) for alo, ahi, blo, bhi in queue) < enough:
            return matched  # even every character left matching would not be enough
        alo, ahi, blo, bhi = queue.pop()
        i, j, k = _longest_block(a, b, alo, ahi, blo, bhi)
        if k:
            matched += k
            if matched >= enough:
                return matched
            if alo < i and blo < j:
                queue.append((alo, i, blo, j))
            if i + k < ahi and j + k < bhi:
                queue.append((i + k, ahi, j + k, bhi))
    return matched


def _longest_block(a: str, b: str, alo: int, ahi: int, blo: int, bhi: int) -> tuple[int, int, int]:
    """The longest block of ``a`` and ``b`` as difflib's ``find_longest_match`` finds it without junk.

    The longest; of those, the first in ``a``; at that place, the first in ``b``.
    """
    besti, bestj, best = alo, blo, 0
    for i in range(alo, ahi):
        k = best + 1
        if i + k > ahi:
            break  # no longer block can start here or later
        if b.find(a[i : i + k], blo, bhi) < 0:
            continue
        while i + k < ahi and b.find(a[i : i + k + 1], blo, bhi) >= 0:
            k += 1
        besti, bestj, best = i, b.find(a[i : i + k], blo, bhi), k
    return besti, bestj, best
