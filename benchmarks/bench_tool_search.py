"""Measure how well ``executor.find_tools`` finds the right tool, and how fast.

The benchmark is the Berkeley Function Calling Leaderboard's data (Apache-2.0), as
the ``bfcl-eval`` PyPI package ships it: real function specifications (name,
description, JSON Schema parameters) and natural-language requests, each with the
function that answers it. The catalogue is every distinct function of the
categories with function lists (simple in Python, Java and JavaScript, multiple,
parallel, live, irrelevance, memory, web search, and the multi-turn APIs; those of
the categories without queries here stand as distractors); the queries are the
requests whose answer calls exactly one function (simple_python, multiple,
live_simple, live_multiple); a query's last user message is the request. A query
counts as found at k when its function is among the first k results, searched with
that function as the query's own test case describes it (see ``read_bfcl``).

Run::

    pip install bfcl-eval            # in a separate venv: it pins many packages
    python benchmarks/bench_tool_search.py --bfcl            # the full benchmark
    python benchmarks/bench_tool_search.py                   # the committed sample
    python benchmarks/bench_tool_search.py --bfcl --write-sample benchmarks/data/tool_search_sample.json

``--bfcl`` reads the installed ``bfcl_eval`` package's data (``--bfcl-dir DIR`` reads a
``bfcl_eval/data`` directory instead); without it the committed sample
(``benchmarks/data/tool_search_sample.json``) is used: every catalogue function, a
few hundred queries. ``--embed MODULE:FUNCTION`` also measures an
:class:`~lagent_like.executors._find.EmbeddingRanker` over that embedding function, and
two ``HybridRanker`` rows fusing it with the lexical ranker, by ranks and by scores (e.g.
``--embed mpnet_embed:embed``, see ``benchmarks/mpnet_embed.py``, or ``--embed
minilm_numpy:embed``, ``--embed use_embed:embed``, ``--embed wordllama_embed:embed``, or
``--embed splade_embed:embed``);
``--embed-cache FILE`` keeps the
vectors for the next run. Both may be given more than once (a cache per model, in the
same order): a last row then fuses the lexical ranker with every model, by scores.
Their ms/query leave out embedding the query, which is printed apart (the mean over
10 queries embedded one at a time).
``--split`` also prints recall on two halves of the queries, taken by a fixed rule
(sorted ids, every other one): ideas are tuned on the first (dev) and kept only if
they help the second (held out) too.
Times are the median of ``--repeat`` passes over all queries, in ms per query, with
the index built beforehand (its build time is reported apart).
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lagent_like.executors._find import EmbeddingRanker, HybridRanker, LexicalRanker, ToolDocument, words

SAMPLE = Path(__file__).resolve().parent / "data" / "tool_search_sample.json"
CATALOGUE_FILES = (
    "simple_python",
    "multiple",
    "parallel",
    "parallel_multiple",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
    "irrelevance",
    "live_irrelevance",
    "simple_java",
    "simple_javascript",
    "memory",
    "web_search",
)
QUERY_FILES = ("simple_python", "multiple", "live_simple", "live_multiple")


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _request(question: Any) -> str:
    """The last user message of a BFCL question (a list of turns, each a list of messages)."""
    messages = [m for turn in question for m in (turn if isinstance(turn, list) else [turn])]
    users = [m["content"] for m in messages if m.get("role") == "user"]
    return str(users[-1]) if users else ""


def read_bfcl(data: Path) -> dict[str, Any]:
    """The catalogue (distinct functions by name, first seen kept) and the single-answer queries.

    Test cases may describe a function of the same name differently (a parameter's
    type, a reworded description); a query whose own case's version reads otherwise
    than the catalogue's keeps it as ``function``, and is searched in the catalogue
    with its version in place of the other (see :func:`recall`).
    """
    functions: dict[str, dict[str, Any]] = {}
    for name in CATALOGUE_FILES:
        for case in _lines(data / f"BFCL_v4_{name}.json"):
            for function in case.get("function", []):
                functions.setdefault(function["name"], function)
    for path in sorted((data / "multi_turn_func_doc").glob("*.json")):
        for function in _lines(path):
            functions.setdefault(function["name"], function)
    queries = []
    for name in QUERY_FILES:
        answers = {
            a["id"]: a["ground_truth"] for a in _lines(data / "possible_answer" / f"BFCL_v4_{name}.json")
        }
        for case in _lines(data / f"BFCL_v4_{name}.json"):
            truth = answers.get(case["id"], [])
            if len(truth) == 1 and len(truth[0]) == 1:
                tool = next(iter(truth[0]))
                query = {"id": case["id"], "query": _request(case["question"]), "tool": tool}
                own = [f for f in case.get("function", []) if f["name"] == tool]
                if own and document(own[0]) != document(functions[tool]):
                    query["function"] = own[0]
                queries.append(query)
    return {"functions": list(functions.values()), "queries": queries}


def _bfcl_dir(given: str | None) -> Path:
    if given:
        return Path(given)
    package = importlib.import_module("bfcl_eval")
    return Path(package.__file__).resolve().parent / "data"


def _parameter_text(schema: Any) -> str:
    """Names and descriptions of a JSON Schema's properties, nested ones included."""
    parts: list[str] = []
    properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
    for name, spec in properties.items():
        parts.append(name)
        if isinstance(spec, dict):
            parts.append(str(spec.get("description", "")))
            parts.extend(str(v) for v in spec.get("enum", ()))
            parts.append(_parameter_text(spec))
            parts.append(_parameter_text(spec.get("items")))
    return " ".join(p for p in parts if p)


def document(function: dict[str, Any]) -> ToolDocument:
    """A BFCL function as the executor's index reads an API (see ``documents_of``)."""
    name = function["name"]
    return ToolDocument(
        name,
        name.replace(".", " "),
        str(function.get("description", "")),
        _parameter_text(function.get("parameters")),
    )


def _by_catalogue(data: dict[str, Any]) -> dict[Any, list[dict[str, Any]]]:
    """The queries grouped by catalogue: ``None`` for the shared one, else their own function's document."""
    groups: dict[Any, list[dict[str, Any]]] = {}
    for q in data["queries"]:
        groups.setdefault(document(q["function"]) if "function" in q else None, []).append(q)
    return groups


def dev_ids(data: dict[str, Any]) -> set[str]:
    """The development half of the queries: every other id in sorted order (the rest is held out)."""
    return set(sorted(q["id"] for q in data["queries"])[0::2])


def recall(
    ranker: Any,
    data: dict[str, Any],
    index: Any = None,
    ks: tuple[int, ...] = (1, 5),
    only: set[str] | None = None,
) -> dict[int, float]:
    """The share of queries (those in ``only``, when given) whose tool is in the first k results.

    A query is searched in the catalogue with its function as its own test case
    describes it: the shared ``index`` (built here when not given) serves the queries
    whose case agrees with the catalogue, a catalogue with the one function replaced
    serves each other version.
    """
    hits = found_at(ranker, data, index, ks)
    ids = [q["id"] for q in data["queries"] if only is None or q["id"] in only]
    return {k: sum(hits[i][k] for i in ids) / max(1, len(ids)) for k in ks}


def found_at(
    ranker: Any, data: dict[str, Any], index: Any = None, ks: tuple[int, ...] = (1, 5)
) -> dict[str, dict[int, bool]]:
    """Per query id, whether its tool is among the first k results, for each k (see :func:`recall`)."""
    documents = [document(f) for f in data["functions"]]
    place = {doc.name: number for number, doc in enumerate(documents)}
    hits: dict[str, dict[int, bool]] = {}
    for own, queries in _by_catalogue(data).items():
        if own is None:
            searched = index if index is not None else ranker.index(documents)
        else:
            replaced = list(documents)
            replaced[place[own.name]] = own
            searched = ranker.index(replaced)
        for q in queries:
            names = [m.name for m in searched.search(q["query"], max(ks))]
            hits[q["id"]] = {k: q["tool"] in names[:k] for k in ks}
    return hits


def ms_per_query(index: Any, queries: list[dict[str, Any]], repeat: int) -> float:
    """The median over ``repeat`` passes of the time per query, in milliseconds."""
    for q in queries[:50]:  # warm the stemmer's cache as a running agent's would be
        index.search(q["query"], 5)
    passes = []
    for _ in range(repeat):
        start = time.perf_counter()
        for q in queries:
            index.search(q["query"], 5)
        passes.append((time.perf_counter() - start) / max(1, len(queries)) * 1000)
    return statistics.median(passes)


def measure(name: str, ranker: Any, data: dict[str, Any], repeat: int, split: bool = False) -> dict[str, Any]:
    """One ranker's row: recall@1 and @5 (per half too with ``split``), ms per query, index build s."""
    documents = [document(f) for f in data["functions"]]
    start = time.perf_counter()
    index = ranker.index(documents)
    built = time.perf_counter() - start
    hits = found_at(ranker, data, index)
    row: dict[str, Any] = {"ranker": name, "tools": len(documents), "queries": len(data["queries"])}
    dev = dev_ids(data)
    halves = {"": None, "dev ": dev, "held-out ": {q["id"] for q in data["queries"]} - dev}
    for label, only in halves.items() if split else [("", None)]:
        ids = [q["id"] for q in data["queries"] if only is None or q["id"] in only]
        for k in (1, 5):
            row[f"{label}recall@{k}"] = round(sum(hits[i][k] for i in ids) / max(1, len(ids)), 4)
    row["ms/query"] = round(ms_per_query(index, data["queries"], repeat), 3)
    row["build s"] = round(built, 2)
    return row


def _slim(schema: Any) -> Any:
    """A JSON Schema cut to what the index reads: descriptions, enums, properties, items."""
    if not isinstance(schema, dict):
        return None
    kept = {k: schema[k] for k in ("description", "enum") if k in schema}
    if isinstance(schema.get("properties"), dict):
        kept["properties"] = {k: _slim(v) or {} for k, v in schema["properties"].items()}
    if isinstance(schema.get("items"), dict):
        kept["items"] = _slim(schema["items"])
    return kept


def write_sample(data: dict[str, Any], path: Path, every: int) -> None:
    """Keep every function (cut to what the index reads) and every ``every``-th query in ``path``."""
    functions = [
        {"name": f["name"], "description": f.get("description", ""), "parameters": _slim(f.get("parameters"))}
        for f in data["functions"]
    ]
    queries = [dict(q) for q in data["queries"][::every]]
    for q in queries:
        if "function" in q:
            f = q["function"]
            q["function"] = {
                "name": f["name"],
                "description": f.get("description", ""),
                "parameters": _slim(f.get("parameters")),
            }
    sample = {
        "source": "Berkeley Function Calling Leaderboard data, bfcl-eval 2026.3.23 (Apache-2.0)",
        "functions": functions,
        "queries": queries,
    }
    path.write_text(json.dumps(sample, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")


def _cached(embed: Any, memory: dict[str, Any]) -> Any:
    """``embed`` remembering each text's vector in ``memory``: the rows embed the same texts again."""

    def cached(texts: list[str]) -> list[Any]:
        missing = [t for t in dict.fromkeys(texts) if t not in memory]
        if missing:
            memory.update(zip(missing, (_array(v) for v in embed(missing))))
        return [memory[t] for t in texts]

    return cached


def _array(vector: Any) -> Any:
    """A vector as a numpy array (the index stacks those fast), or as a list without numpy."""
    try:
        import numpy
    except ImportError:
        return [float(v) for v in vector]
    return numpy.asarray(vector, dtype=numpy.float32)


def _load_vectors(path: Path | None) -> dict[str, Any]:
    """The vectors an earlier run saved in ``path`` (JSON lines of ``[text, vector]``), if any."""
    if path is None or not path.exists():
        return {}
    pairs = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line)
    return {text: _array(vector) for text, vector in pairs}


def _save_vectors(path: Path | None, memory: dict[str, Any]) -> None:
    if path is not None:
        lines = (json.dumps([text, [round(float(v), 6) for v in vector]]) for text, vector in memory.items())
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _embedding(given: str, cache: Path | None, data: dict[str, Any]) -> Any:
    """The embedding function ``MODULE:FUNCTION``, cached, with every text of ``data`` embedded."""
    module, _, function = given.partition(":")
    raw = getattr(importlib.import_module(module), function)
    raw([data["queries"][0]["query"]])  # the model loads on the first call: not a query's time
    start = time.perf_counter()
    for q in data["queries"][:10]:
        raw([q["query"]])
    print(f"{given}: one query embedded in {(time.perf_counter() - start) * 100:.1f} ms (not in the rows)")
    memory = _load_vectors(cache)
    embed = _cached(raw, memory)
    # In batches, far faster than one by one: the requests, the tools, each request's own tool.
    embed([q["query"] for q in data["queries"]])
    embed([document(f).text() for f in data["functions"]])
    embed([document(q["function"]).text() for q in data["queries"] if "function" in q])
    _save_vectors(cache, memory)
    return embed


def main(argv: list[str] | None = None) -> int:
    """Print one row per ranker (``--json`` for JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bfcl", action="store_true", help="read the installed bfcl_eval package's data")
    parser.add_argument("--bfcl-dir", help="a bfcl_eval/data directory")
    parser.add_argument("--write-sample", type=Path, help="write a sample of the data here and stop")
    parser.add_argument("--every", type=int, default=6, help="the sample keeps every N-th query")
    parser.add_argument("--embed", action="append", help="MODULE:FUNCTION, texts -> vectors (repeatable)")
    parser.add_argument(
        "--embed-cache", type=Path, action="append", help="per --embed, a file keeping its vectors"
    )
    parser.add_argument("--embed-only", action="store_true", help="leave out the lexical rows")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--split", action="store_true", help="also print recall on the dev and held-out halves of the queries"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.bfcl or args.bfcl_dir:
        data = read_bfcl(_bfcl_dir(args.bfcl_dir))
    else:
        data = json.loads(SAMPLE.read_text(encoding="utf-8"))
    if args.write_sample:
        write_sample(data, args.write_sample, args.every)
        return 0
    rows = []
    if not args.embed_only:
        rows.append(measure("lexical (BM25F)", LexicalRanker(), data, args.repeat, args.split))
        plain = LexicalRanker(
            {"title": 1.0, "description": 1.0, "parameters": 0.0},
            name_bonus=0.0,
            grams=0.0,
            coverage=0.0,
            spelling=0.0,
        )
        rows.append(measure("plain BM25, name + description", plain, data, args.repeat, args.split))
    embeds = []
    for number, given in enumerate(args.embed or ()):
        cache = args.embed_cache[number] if number < len(args.embed_cache or ()) else None
        embeds.append((given, _embedding(given, cache, data)))
    for given, embed in embeds:
        rows.append(measure(f"embedding ({given})", EmbeddingRanker(embed), data, 1, args.split))
        for fusion in ("ranks", "scores"):
            hybrid = HybridRanker([LexicalRanker(), EmbeddingRanker(embed)], fusion=fusion)
            rows.append(
                measure(f"hybrid by {fusion}: lexical + embedding ({given})", hybrid, data, 1, args.split)
            )
    if len(embeds) > 1:
        every = HybridRanker([LexicalRanker(), *(EmbeddingRanker(e) for _, e in embeds)], fusion="scores")
        label = " + ".join(given for given, _ in embeds)
        rows.append(measure(f"hybrid by scores: lexical + {label}", every, data, 1, args.split))
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        for row in rows:
            print("  ".join(f"{k}={v}" for k, v in row.items()))
    print(f"stemmer: {'snowball' if words('running') == ['run'] else 'built-in suffix stripper'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
