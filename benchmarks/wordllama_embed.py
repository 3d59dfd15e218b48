"""Embedding function for ``bench_tool_search.py --embed``: WordLlama's static embeddings.

Benchmark-only; the package depends on none of this. The ``wordllama`` PyPI package
(MIT) ships its ``l2_supercat`` 256-dimension token embeddings and their tokenizer
inside the wheel: a text's vector is the weighted mean of its tokens' vectors (no
neural network runs, about a millisecond per text). Its loader looks for the
tokenizer under ``tokenizer/`` while the wheel holds it under ``tokenizers/``, and
then tries a model hub; this module points the loader at a cache directory holding
the wheel's own file, with downloads disabled. In a benchmark venv::

    pip install wordllama
    python benchmarks/bench_tool_search.py --bfcl --embed wordllama_embed:embed
"""

from __future__ import annotations

import shutil
from functools import cache
from pathlib import Path
from typing import Any

CACHE = Path.home() / ".cache" / "lagent-like-bench" / "wordllama"


@cache
def _model() -> Any:
    """The WordLlama model, loaded from the wheel's files only."""
    import wordllama
    from wordllama import WordLlama

    tokenizers = CACHE / "tokenizers"
    tokenizers.mkdir(parents=True, exist_ok=True)
    name = "l2_supercat_tokenizer_config.json"
    if not (tokenizers / name).exists():
        shutil.copy(Path(wordllama.__file__).parent / "tokenizers" / name, tokenizers / name)
    return WordLlama.load(cache_dir=CACHE, disable_download=True)


def embed(texts: list[str]) -> Any:
    """One 256-dimension vector per text."""
    return _model().embed(texts)
