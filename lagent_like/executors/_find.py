"""Finding the right tools for a request among many: ``executor.find_tools(query, k)``.

A catalogue of hundreds of tools is too long for a prompt; an agent needs the few
that fit the request. The default ranker is lexical and offline (no model, no
network): BM25F over each API's fields, which are the name split into words
(``getWeatherForecast`` and ``get_weather_forecast`` both read ``get weather
forecast``), the description, and the parameters' names and descriptions, each field
with its own weight and length normalisation, and every word stemmed (Snowball's
English stemmer when the ``snowballstemmer`` package is installed, else a small
suffix stripper). A request's values count as the words for their kind: a date
("March 5th", "2023-10-01", "Friday") adds ``date``, a time of day adds ``time``, an
amount of money adds ``amount``, a measure ("10 km", "5 units") adds ``unit``, since a
request names the values it has, not the parameters they fill. A request word no tool
holds (a misspelling such as "wether", or glued words such as "milesfrom") counts, at
half weight, as the catalogue's words one edit away from it, or as the two words it
glues. Among the tools sharing a word with the request, those holding
more of its words, and those whose name and description are alike letter by letter
(character n-grams), score more. The scores of each word in each document are
computed when the index is built, so a query only adds up posting lists. An embedding ranker
(:class:`EmbeddingRanker`) takes any embedding function, for a model the user picks.

An index belongs to one state of an executor's catalogue: adding, removing or
reconfiguring tools makes the next search build a new one.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Callable, NamedTuple, Optional, Protocol

from .._private.lazy import lazy_module, lazy_pattern
from ._base import ExecutorBase

heapq = lazy_module("heapq")  # imported on the first search: most programs never search

__all__ = [
    "EmbeddingRanker",
    "HybridRanker",
    "LexicalRanker",
    "Ranker",
    "ToolDocument",
    "ToolIndex",
    "ToolMatch",
    "ToolSearch",
    "documents_of",
    "words",
]


class ToolMatch(NamedTuple):
    """One API found for a request.

    Attributes:
        name: the API's name as the executor calls it (``'Tool'`` or ``'Tool.api'``).
        score: how well it fits (higher is better; comparable within one search only).
    """

    name: str
    score: float


class ToolDocument(NamedTuple):
    """The text of one API that a ranker reads.

    Attributes:
        name: the API's call name.
        title: the name (and a toolkit's name) as words.
        description: the API's description.
        parameters: the parameters' names and descriptions.
    """

    name: str
    title: str
    description: str
    parameters: str

    def text(self) -> str:
        """Return all the fields as one text (what an embedding model reads).

        The name is written as lowercase words (``Weather_1_GetWeather`` reads
        ``weather get weather``): a model's vocabulary holds words, not identifiers.
        """
        name = " ".join(word.lower() for word in _CAMEL().findall(self.title))
        return f"{name}: {self.description} Parameters: {self.parameters}"


class ToolIndex(Protocol):
    """What a ranker builds for a catalogue: something that answers searches."""

    def search(self, query: str, limit: int) -> list[ToolMatch]:
        """Return up to ``limit`` matches for ``query``, best first."""


class Ranker(Protocol):
    """Builds the index of a catalogue (see :class:`LexicalRanker`, :class:`EmbeddingRanker`)."""

    def index(self, documents: Sequence[ToolDocument]) -> ToolIndex:
        """Return the index of ``documents``."""


# Compiled on the first search (lazy_pattern): most programs never search.
_CAMEL = lazy_pattern(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+")
# Words that say nothing about which tool is meant (the last line: a request's courtesies).
_STOPWORD_TEXT = """
a an and are as at be by can could do does for from get give has have how i if in into is it
its me my of on or our please should so some than that the their them then there these this
those to us use using want was we what when where which who will with would you your
also help hey hi just know like need tell thanks
"""
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())
# Longest first: the first suffix that leaves a stem of three letters or more is cut.
_SUFFIXES = (
    "ational", "ization", "fulness", "iveness", "ations", "ation", "ingly", "ments", "ness", "ment",
    "ings", "ing", "ies", "ied", "ers", "er", "est", "ed", "ly", "es", "s",
)  # fmt: skip


def _strip_suffix(word: str) -> str:
    """A small stemmer for when Snowball's is not installed: strips common English suffixes."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            stem = word[: -len(suffix)]
            return stem + "y" if suffix in ("ies", "ied") else stem
    return word


def _stemmer() -> Callable[[str], str]:
    """Snowball's English stemmer when its package is installed, else :func:`_strip_suffix`."""
    try:
        import snowballstemmer
    except ImportError:
        return _strip_suffix
    stem: Callable[[str], str] = snowballstemmer.stemmer("english").stemWord
    return stem


class _Words:
    """Text to index terms: split, lowercased, stop words dropped, stemmed (stems cached)."""

    def __init__(self, stem: Optional[Callable[[str], str]] = None) -> None:
        self._stem = stem or _stemmer()
        self._stems: dict[str, str] = {}

    def __call__(self, text: str) -> list[str]:
        stems = self._stems
        terms = []
        for word in _CAMEL().findall(text):
            word = word.lower()
            if len(word) < 2 or word in _STOPWORDS:
                continue
            stem = stems.get(word)
            if stem is None:
                if len(stems) >= _STEM_CACHE:  # queries bring new words without end
                    stems.clear()
                stem = stems[word] = self._stem(word)
            terms.append(stem)
        return terms


_STEM_CACHE = 100_000
_WORDS: Optional[_Words] = None


def words(text: str) -> list[str]:
    """Return the index terms of ``text`` (the stemmer is loaded on first use)."""
    global _WORDS
    if _WORDS is None:
        _WORDS = _Words()
    return _WORDS(text)


def _parameter_text(parameters: Any) -> str:
    """Names, descriptions and allowed values of a description's parameters."""
    parts: list[str] = []
    for item in parameters if isinstance(parameters, list) else ():
        if isinstance(item, dict):
            parts.append(str(item.get("name", "")))
            parts.append(str(item.get("description", "")))
            parts.extend(str(value) for value in item.get("enum", ()))
    return " ".join(parts)


def _document(name: str, description: dict[str, Any], owner: str) -> ToolDocument:
    """The document of API ``name`` from its Lagent description (``owner``: its toolkit's text)."""
    title = name.replace(".", " ")
    text = str(description.get("description") or "")
    if owner:
        text = f"{text} {owner}"
    return ToolDocument(name, title, text, _parameter_text(description.get("parameters")))


def documents_of(actions: Iterable[Any]) -> list[ToolDocument]:
    """The documents of every API of ``actions`` (enabled or not), named as the executor calls them."""
    documents = []
    for action in actions:
        description = action.description
        if action.is_toolkit:
            owner = str(description.get("description") or "")
            for api in description["api_list"]:
                documents.append(_document(f"{action.name}.{api['name']}", api, owner))
        else:
            documents.append(_document(action.name, description, ""))
    return documents


# Values in a request that tell which kind of parameter a tool needs, as the word a
# tool's parameters would use: "on March 5th" asks for a tool with a date.
_VALUE_KINDS = (
    (
        lazy_pattern(
            r"\b(?:january|february|march|april|june|july|august|september|october|november|december"
            r"|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|today|tomorrow|yesterday"
            r"|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b"
            r"|\bmay\s+\d|\d\s+may\b"  # not the verb
            r"|\b\d{4}[-/.]\d{1,2}[-/.]\d{1,2}\b|\b\d{1,2}(?:st|nd|rd|th)\b",
            re.IGNORECASE,
        ),
        "date",
    ),
    (
        lazy_pattern(r"\b\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\b\d{1,2}:\d{2}\b", re.IGNORECASE),
        "time",
    ),
    (
        lazy_pattern(
            r"[$\u20ac\u00a3\u00a5]\s*\d|\b\d+(?:\.\d+)?\s*(?:dollars?|euros?|usd|eur|gbp|pounds?)\b", re.I
        ),
        "amount",
    ),
    (
        lazy_pattern(
            r"\b\d+(?:\.\d+)?\s*(?:km|kilomet(?:er|re)s?|miles?|met(?:er|re)s?|kg|kilograms?|lbs?|celsius"
            r"|fahrenheit|units?|feet|ft|inch(?:es)?|cm|mm|grams?|lit(?:er|re)s?|gallons?)\b|\u00b0\s*[CF]\b",
            re.IGNORECASE,
        ),
        "unit",
    ),
)


def _value_kinds(query: str) -> list[str]:
    """The words naming the kinds of value ``query`` holds (dates, times, amounts, measures)."""
    return [word for pattern, word in _VALUE_KINDS if pattern().search(query)]


def _grams(text: str) -> dict[str, int]:
    """Character 3- to 5-grams of each word of ``text``, the word's ends marked by spaces."""
    counts: dict[str, int] = {}
    for word in _CAMEL().findall(text):
        padded = f" {word.lower()} "
        for size in (3, 4, 5):
            for start in range(len(padded) - size + 1):
                gram = padded[start : start + size]
                counts[gram] = counts.get(gram, 0) + 1
    return counts


_COMMON_GRAM = 0.05  # the share of the texts above which a gram is left out


class _GramIndex:
    """TF-IDF cosine over character n-grams: catches misspellings, inflections, glued words."""

    def __init__(self, texts: Sequence[str], weight: float) -> None:
        counted = [_grams(text) for text in texts]
        holders: dict[str, int] = {}
        for counts in counted:
            for gram in counts:
                holders[gram] = holders.get(gram, 0) + 1
        total = len(texts)
        # A gram most texts hold tells little and costs a long posting list: left out.
        common = max(1.0, _COMMON_GRAM * total)
        self._idf = {
            gram: math.log((total + 1) / (held + 0.5)) for gram, held in holders.items() if held <= common
        }
        self._weight = weight
        self._postings: dict[str, list[tuple[int, float]]] = {}
        for number, counts in enumerate(counted):
            vector = self._vector(counts)
            for gram, value in vector.items():
                self._postings.setdefault(gram, []).append((number, value))

    def _vector(self, counts: dict[str, int]) -> dict[str, float]:
        idf = self._idf
        vector = {g: (1.0 + math.log(c)) * idf[g] for g, c in counts.items() if g in idf}
        norm = math.sqrt(sum(v * v for v in vector.values())) or 1.0
        return {g: v / norm for g, v in vector.items()}

    def similarities(self, query: str) -> dict[int, float]:
        """Document number -> ``weight`` x the cosine of its n-grams with the query's."""
        scores: dict[int, float] = {}
        postings = self._postings
        for gram, value in self._vector(_grams(query)).items():
            for doc, other in postings[gram]:
                scores[doc] = scores.get(doc, 0.0) + value * other
        weight = self._weight
        return {doc: weight * score for doc, score in scores.items()}


class _LexicalIndex:
    """BM25F postings: term -> [(document number, saturated weight, share of the name)], idf folded in.

    A document's score is its BM25F score times ``1 + bonus * c``, where ``c`` is the
    share of its name's words that the query holds: of the many tools whose texts
    mention a request's words, the one whose name says them is likelier meant.
    """

    def __init__(
        self,
        names: list[str],
        postings: dict[str, list[tuple[int, float, float]]],
        bonus: float,
        grams: Optional[_GramIndex] = None,
        coverage: float = 0.0,
        spelling: float = 0.0,
    ) -> None:
        self._names = names
        self._postings = postings
        self._bonus = bonus
        self._grams = grams
        self._coverage = coverage
        self._spelling = spelling
        self._near: Optional[_NearTerms] = None  # built on the first word the catalogue lacks

    def search(self, query: str, limit: int) -> list[ToolMatch]:
        """Return up to ``limit`` matches for ``query``, best first (ties by catalogue order)."""
        scores: dict[int, float] = {}
        named: dict[int, float] = {}
        matched: dict[int, int] = {}
        postings = self._postings
        terms = _query_terms(query)
        for term, scale in self._weighted(terms, query):
            for doc, weight, share in postings.get(term, ()):
                scores[doc] = scores.get(doc, 0.0) + weight * scale
                matched[doc] = matched.get(doc, 0) + 1
                if share:
                    named[doc] = named.get(doc, 0.0) + share * scale
        bonus = self._bonus
        for doc, share in named.items():
            scores[doc] *= 1.0 + bonus * share
        if self._coverage and terms:
            self._cover(scores, matched, len(terms))
        if self._grams is not None:
            # Only tools sharing a word with the request: a few shared letters find no tool.
            for doc, similarity in self._grams.similarities(query).items():
                if doc in scores:
                    scores[doc] += similarity
        best = heapq.nsmallest(limit, scores.items(), key=lambda item: (-item[1], item[0]))
        return [ToolMatch(self._names[doc], round(score, 6)) for doc, score in best]

    def _weighted(self, terms: set[str], query: str) -> Iterator[tuple[str, float]]:
        """Each query term with weight 1; for a term no tool holds, its near terms at ``spelling``."""
        postings = self._postings
        unknown = [] if not self._spelling else [term for term in terms if term not in postings]
        for term in terms:
            if term in postings or not unknown:
                yield term, 1.0
        if unknown:
            if self._near is None:
                self._near = _NearTerms(postings)
            # The word as written, for cutting glued words (a stem cuts badly: "convertcurr").
            written = {stem: word.lower() for word in _CAMEL().findall(query) for stem in words(word)}
            for term in unknown:
                for other in self._near.lookup(term, written.get(term, term)):
                    yield other, self._spelling

    def _cover(self, scores: dict[int, float], matched: dict[int, int], terms: int) -> None:
        """Scale each score by ``(share of the request's terms the tool holds) ** coverage``."""
        power = self._coverage
        for doc in scores:
            # A misspelt term may reach a tool through two near terms: a share stays <= 1.
            scores[doc] *= (min(matched[doc], terms) / terms) ** power


class _NearTerms:
    """What a term no tool holds may stand for: catalogue terms one edit away, or two glued terms.

    Edits are found through deletion neighbourhoods (as SymSpell does): two words
    are one insertion, deletion or substitution apart, or have two letters swapped,
    when deleting at most one letter from each makes them equal, so each catalogue
    term is filed under itself and its one-letter deletions, and a query term looks
    up the same keys of its own.
    """

    def __init__(self, postings: dict[str, Any]) -> None:
        self._known = postings
        self._deletes: dict[str, list[str]] = {}
        for term in postings:
            if len(term) >= _SPELT:
                for key in _deletes(term):
                    self._deletes.setdefault(key, []).append(term)

    def lookup(self, term: str, word: str) -> list[str]:
        """The known terms ``term`` (the stem of ``word``) may misspell, or the two that ``word`` glues."""
        if len(word) < _SPELT:  # the word as written: stemmers cut misspellings oddly ("wether" -> "weth")
            return []
        found = dict.fromkeys(t for key in _deletes(term) for t in self._deletes.get(key, ()))
        found.pop(term, None)
        if found:
            return list(found)
        return self._parts(word)

    def _parts(self, word: str) -> list[str]:
        """The terms of the first cut of ``word`` into two words the catalogue holds (stop words allowed)."""
        known = self._known
        for cut in range(3, len(word) - 1):
            parts = words(word[:cut]) + words(word[cut:])
            if parts and all(part in known for part in parts):
                return parts
        return []


_SPELT = 5  # shorter request words are left as they are: one edit makes another word


def _deletes(term: str) -> set[str]:
    """``term`` and every way of deleting one of its letters."""
    return {term} | {term[:i] + term[i + 1 :] for i in range(len(term))}


def _query_terms(query: str) -> set[str]:
    """The request's terms, with the words for the kinds of value it holds."""
    terms = set(words(query))
    kinds = _value_kinds(query)
    if kinds:
        terms.update(words(" ".join(kinds)))
    return terms


class LexicalRanker:
    """The default ranker: BM25F over name, description and parameters; offline.

    Args:
        weights: the weight of each field: ``title`` (the name as words),
            ``description``, ``parameters`` (defaults 2, 1 and 0.7, the best of a grid
            on the BFCL benchmark, see ``benchmarks/bench_tool_search.py``).
        k1: BM25's term-frequency saturation.
        b: BM25's length normalisation, the same for each field.
        name_bonus: how much more a tool scores when the request holds all the
            words of its name (``1 + name_bonus * share``, the share of the name's
            words the request holds); 0 turns it off.
        grams: the weight of the character n-gram similarity added to the score of
            each tool sharing a word with the request (the TF-IDF cosine of the 3- to
            5-grams of name and description: a misspelt or inflected word still
            counts); 0 (the default) turns it off. ``grams=12`` found the right tool
            first a point more often on the BFCL benchmark (0.683 against 0.674; in the
            first five 0.888 against 0.886) at about four times the cost per query and
            half again the index build, so it is offered, not the default.
        coverage: the score is multiplied by the share of the request's terms the
            tool holds to this power; 0 turns it off.
        spelling: the weight of a request word that no tool holds when it is read as
            the catalogue's words one edit away from it (one letter inserted, deleted,
            replaced, or two swapped; words of five letters or more), or else as the
            two catalogue words it glues (``milesfrom``); 0 turns it off.

    Raises:
        TypeError: an option is not a number (a bool is not one), or ``weights`` not a dict.
        ValueError: an option is negative or not finite, ``b`` is above 1, or ``weights``
            names a field other than ``title``, ``description`` and ``parameters``.
    """

    def __init__(
        self,
        weights: Optional[dict[str, float]] = None,
        k1: float = 1.2,
        b: float = 0.3,
        name_bonus: float = 0.2,
        grams: float = 0.0,
        coverage: float = 0.2,
        spelling: float = 0.5,
    ) -> None:
        options = {"k1": k1, "b": b, "name_bonus": name_bonus, "grams": grams, "coverage": coverage}
        _check_weights(weights)
        for option, value in {**options, "spelling": spelling, **(weights or {})}.items():
            _check_number(option, value)
        if b > 1:
            raise ValueError(f"LexicalRanker: b must be between 0 and 1, got {b!r}")
        self.weights = {"title": 2.0, "description": 1.0, "parameters": 0.7, **(weights or {})}
        self.k1 = k1
        self.b = b
        self.name_bonus = name_bonus
        self.grams = grams
        self.coverage = coverage
        self.spelling = spelling

    def _field_frequencies(self, documents: Sequence[ToolDocument]) -> list[dict[str, float]]:
        """Per document: term -> the fields' weighted, length-normalised frequencies, summed."""
        fields = [(field, weight) for field, weight in self.weights.items() if weight]
        terms = [[(weight, words(getattr(doc, field))) for field, weight in fields] for doc in documents]
        averages = [
            max(1e-9, sum(len(doc[i][1]) for doc in terms) / max(1, len(terms))) for i in range(len(fields))
        ]
        frequencies = []
        for doc in terms:
            counts: dict[str, float] = {}
            for (weight, field_terms), average in zip(doc, averages):
                norm = weight / (1 - self.b + self.b * len(field_terms) / average)
                for term in field_terms:
                    counts[term] = counts.get(term, 0.0) + norm
            frequencies.append(counts)
        return frequencies

    def index(self, documents: Sequence[ToolDocument]) -> ToolIndex:
        """Return the index of ``documents``; each term's score per document is computed here."""
        frequencies = self._field_frequencies(documents)
        holders: dict[str, int] = {}
        for counts in frequencies:
            for term in counts:
                holders[term] = holders.get(term, 0) + 1
        total = len(documents)
        postings: dict[str, list[tuple[int, float, float]]] = {}
        for number, counts in enumerate(frequencies):
            title = set(words(documents[number].title))
            share = 1.0 / len(title) if title else 0.0
            for term, tf in counts.items():
                idf = math.log(1 + (total - holders[term] + 0.5) / (holders[term] + 0.5))
                postings.setdefault(term, []).append(
                    (number, idf * tf * (self.k1 + 1) / (tf + self.k1), share if term in title else 0.0)
                )
        grams = None
        if self.grams:
            grams = _GramIndex([f"{doc.title} {doc.description}" for doc in documents], self.grams)
        return _LexicalIndex(
            [doc.name for doc in documents], postings, self.name_bonus, grams, self.coverage, self.spelling
        )


def _check_weights(weights: object) -> None:
    """Refuse ``weights`` that are not a dict of :class:`ToolDocument`'s text fields.

    Raises:
        TypeError: ``weights`` is not a dict.
        ValueError: it names another field.
    """
    if weights is None:
        return
    if not isinstance(weights, dict):
        raise TypeError(
            f"LexicalRanker: weights must be a dict of field -> weight, got {type(weights).__name__}"
        )
    fields = ("title", "description", "parameters")
    unknown = sorted(str(field) for field in weights if field not in fields)
    if unknown:
        raise ValueError(f"LexicalRanker: weights names no field {unknown}: the fields are {list(fields)}")


def _check_number(option: str, value: object) -> None:
    """Refuse an option that is not a finite number >= 0 (a bool is refused: it reads as 0 or 1).

    Raises:
        TypeError: ``value`` is not an int or a float.
        ValueError: it is negative or not finite.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"LexicalRanker: {option} must be a number, got {type(value).__name__} {value!r}")
    if not 0 <= value < float("inf"):
        raise ValueError(f"LexicalRanker: {option} must be a finite number >= 0, got {value!r}")


class _EmbeddingIndex:
    """Unit vectors of the documents; a search is one embedding and a dot product per document."""

    def __init__(self, names: list[str], vectors: list[Iterable[float]], embed: Callable[..., Any]) -> None:
        self._names = names
        self._embed = embed
        self._matrix: Any = _unit_matrix(vectors)
        self._vectors = _unit_vectors(vectors) if self._matrix is None else []

    def _scores(self, vector: Iterable[float]) -> list[float]:
        """The cosine of the query's ``vector`` with each document's."""
        if self._matrix is not None:
            # In numpy, the query too: a sparse model's vector has 30,000 entries, which
            # a Python loop takes a quarter of a second to scale (bench_tool_search).
            import numpy

            query = numpy.asarray(vector, dtype=numpy.float32).ravel()
            norm = float(numpy.linalg.norm(query)) or 1.0
            return [float(score) for score in self._matrix.dot(query / norm)]
        (unit,) = _unit_vectors([vector])
        return [sum(a * b for a, b in zip(unit, doc)) for doc in self._vectors]

    def search(self, query: str, limit: int) -> list[ToolMatch]:
        """Return up to ``limit`` matches for ``query`` by cosine similarity, best first."""
        (vector,) = self._embed([query])
        scores = ((score, n) for n, score in enumerate(self._scores(vector)))
        best = heapq.nsmallest(limit, scores, key=lambda item: (-item[0], item[1]))
        return [ToolMatch(self._names[n], round(score, 6)) for score, n in best]


def _unit_matrix(vectors: list[Iterable[float]]) -> Any:
    """The vectors as unit rows of a numpy matrix, or None without numpy (or vectors)."""
    if not vectors:
        return None
    try:  # numpy, when installed, scores a catalogue hundreds of times faster
        import numpy
    except ImportError:
        return None
    # Rows that are arrays already (a model's output) are stacked without a copy to lists.
    rows = [vector if isinstance(vector, numpy.ndarray) else list(vector) for vector in vectors]
    matrix = numpy.asarray(rows, dtype=numpy.float32)
    norms = numpy.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms


def _unit_vectors(vectors: Iterable[Iterable[float]]) -> list[list[float]]:
    units = []
    for vector in vectors:
        values = [float(v) for v in vector]
        norm = math.sqrt(sum(v * v for v in values)) or 1.0
        units.append([v / norm for v in values])
    return units


class EmbeddingRanker:
    """Ranks by the cosine similarity of embeddings from a model the user provides.

    The package ships no model and downloads none: ``embed`` is any function from a
    list of texts to one vector per text, e.g. a ``sentence-transformers`` model's
    ``encode``, or ``lambda texts: list(fastembed_model.embed(texts))``. Each API is
    embedded once per catalogue; a search embeds the query.

    Args:
        embed: texts -> vectors (any sequences of numbers, e.g. numpy rows).
    """

    def __init__(self, embed: Callable[[list[str]], Iterable[Iterable[float]]]) -> None:
        self.embed = embed

    def index(self, documents: Sequence[ToolDocument]) -> ToolIndex:
        """Return the index of ``documents``: their texts embedded now."""
        vectors = list(self.embed([doc.text() for doc in documents])) if documents else []
        return _EmbeddingIndex([doc.name for doc in documents], vectors, self.embed)


class ToolSearch(ExecutorBase):
    """``find_tools`` on an executor; the index is rebuilt when the catalogue changes."""

    #: The ranker ``find_tools`` uses when given none; set another on an executor to change it.
    tool_ranker: Ranker = LexicalRanker()
    _tool_index: Optional[tuple[int, Ranker, ToolIndex]] = None

    def find_tools(self, query: str, k: int = 5, *, ranker: Optional[Ranker] = None) -> list[ToolMatch]:
        """Return the ``k`` enabled APIs that best fit ``query``, best first.

        Offline by default: BM25F over each API's name (split into words), description,
        and parameters' names, descriptions and allowed values, stemmed (see
        :class:`LexicalRanker`). APIs sharing no word with the query are not returned, so
        fewer than ``k`` may come back.

        Args:
            query: the request, in words.
            k: how many to return at most.
            ranker: another ranker for this search (e.g. an :class:`EmbeddingRanker`);
                default: the executor's ``tool_ranker``.

        Returns:
            ``ToolMatch(name, score)`` tuples; ``name`` is the API's call name.

        Raises:
            TypeError: ``query`` is not a string.
            ValueError: ``k`` is not a positive int.
        """
        if not isinstance(query, str):
            raise TypeError(f"find_tools: query must be a str, got {type(query).__name__}")
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError(f"find_tools: k must be a positive int, got {k!r}")
        index = self._index_for(ranker or self.tool_ranker)
        # Disabled tools stay in the index (enabling one is then free): skip them here.
        found: list[ToolMatch] = []
        limit = k
        while True:
            matches = index.search(query, limit)
            found = [m for m in matches if self.is_valid(m.name)][:k]
            if len(found) == k or len(matches) < limit:
                return found
            limit *= 4

    def _index_for(self, ranker: Ranker) -> ToolIndex:
        """The index of the current catalogue by ``ranker``, built when the catalogue changed."""
        cached = self._tool_index
        if cached is not None and cached[0] == self._version and cached[1] is ranker:
            return cached[2]
        with self._lock:
            version = self._version
            index = ranker.index(documents_of(self.actions.values()))
            self._tool_index = (version, ranker, index)
        return index


def _rank_shares(matches: list[ToolMatch], constant: float) -> Iterator[tuple[str, float]]:
    """Reciprocal rank fusion's share of each match: ``1 / (constant + rank)``."""
    for rank, match in enumerate(matches, 1):
        yield match.name, 1.0 / (constant + rank)


def _score_shares(matches: list[ToolMatch]) -> Iterator[tuple[str, float]]:
    """Each match's score scaled to [0, 1] within its list (best 1, last 0; all 1 when equal)."""
    if not matches:
        return
    high = matches[0].score
    low = min(match.score for match in matches)
    span = high - low
    for match in matches:
        yield match.name, (match.score - low) / span if span > 0 else 1.0


class _FusedIndex:
    """Several indexes' results merged by their ranks or by their scaled scores."""

    def __init__(self, indexes: list[ToolIndex], depth: int, constant: float, fusion: str) -> None:
        self._indexes = indexes
        self._depth = depth
        self._constant = constant
        self._fusion = fusion

    def search(self, query: str, limit: int) -> list[ToolMatch]:
        """Return up to ``limit`` matches: each index's first ``depth`` results, fused."""
        scores: dict[str, float] = {}
        first_seen: dict[str, int] = {}
        for index in self._indexes:
            matches = index.search(query, max(limit, self._depth))
            if self._fusion == "scores":
                shares = _score_shares(matches)
            else:
                shares = _rank_shares(matches, self._constant)
            for name, share in shares:
                scores[name] = scores.get(name, 0.0) + share
                first_seen.setdefault(name, len(first_seen))
        best = heapq.nsmallest(limit, scores.items(), key=lambda item: (-item[1], first_seen[item[0]]))
        return [ToolMatch(name, round(score, 6)) for name, score in best]


_FUSIONS = ("ranks", "scores")


class HybridRanker:
    """Ranks with several rankers and fuses their results.

    Typically ``HybridRanker([LexicalRanker(), EmbeddingRanker(embed)])``: words the
    request shares with a tool, and what it means. By default the ranks are fused
    (reciprocal rank fusion: a tool scores ``sum 1 / (constant + rank)``);
    ``fusion="scores"`` adds the rankers' scores instead, each scaled to [0, 1] within
    its first ``depth`` results, which keeps how far apart the tools are (on the BFCL
    benchmark it finds more at the first place, see ``benchmarks/TOOL_SEARCH.md``).

    Args:
        rankers: the rankers to fuse.
        depth: how many results of each ranker take part.
        constant: the rank fusion's ``c`` in ``1 / (c + rank)``; larger flattens the ranks.
        fusion: ``"ranks"`` or ``"scores"``.

    Raises:
        ValueError: ``fusion`` is neither ``"ranks"`` nor ``"scores"``.
    """

    def __init__(
        self, rankers: Sequence[Ranker], depth: int = 50, constant: float = 60.0, fusion: str = "ranks"
    ) -> None:
        if fusion not in _FUSIONS:
            raise ValueError(f"HybridRanker: fusion must be 'ranks' or 'scores', got {fusion!r}")
        self.rankers = list(rankers)
        self.depth = depth
        self.constant = constant
        self.fusion = fusion

    def index(self, documents: Sequence[ToolDocument]) -> ToolIndex:
        """Return the fused index of ``documents`` (each ranker builds its own)."""
        indexes = [ranker.index(documents) for ranker in self.rankers]
        return _FusedIndex(indexes, self.depth, self.constant, self.fusion)
