"""A test MCP server that first writes down the environment it was started with.

Run as ``python r4_left_env_server.py OUT NAME TOOLS``: writes the environment (a JSON
object) to the file ``OUT``, then serves as ``r3_inspector_mcp_server.py NAME TOOLS``.
"""

from __future__ import annotations

import json
import os
import runpy
import sys
from pathlib import Path

if __name__ == "__main__":
    out, *rest = sys.argv[1:]
    Path(out).write_text(json.dumps(dict(os.environ)), encoding="utf-8")
    sys.argv = [str(Path(__file__).with_name("r3_inspector_mcp_server.py")), *rest]
    runpy.run_path(sys.argv[0], run_name="__main__")
