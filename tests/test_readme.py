"""The README's Python snippets run and print what their comments and text say."""

from __future__ import annotations

import contextlib
import io
import re
import socket
from pathlib import Path

from fake_openai_server import FakeOpenAIServer

README = Path(__file__).resolve().parents[1] / "README.rst"


def _python_blocks() -> list[str]:
    """The ``.. code-block:: python`` bodies of the README, dedented, in order."""
    blocks = re.findall(r"\.\. code-block:: python\n\n((?:   .*\n|\n)+)", README.read_text(encoding="utf-8"))
    return ["\n".join(line[3:] for line in block.splitlines()) for block in blocks]


def _run(code: str, namespace: dict[str, object]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(README), "exec"), namespace)
    return out.getvalue()


def test_the_readme_example_prints_what_its_comments_say() -> None:
    example, _, _ = _python_blocks()
    info, result, refusal = _run(example, {}).splitlines()
    assert info.startswith("[{'name': 'Weather.current', 'description': 'Current weather of a city.'")
    assert result == '0 {"city": "Paris", "temperature": 21, "unit": "C"}'
    assert refusal.startswith("-1002 Weather has no API 'forecast'. ")


def test_the_readme_exports_print_what_their_comments_say() -> None:
    example, exports, _ = _python_blocks()
    namespace: dict[str, object] = {}
    _run(example, namespace)
    names, unit = _run(exports, namespace).splitlines()
    assert names == "Weather__current Weather__current Weather__current"
    assert unit == "{'type': 'STRING', 'enum': ['C', 'F'], 'description': 'temperature unit'}"
    # The comment under the print says the same.
    assert f"   # {unit}\n" in README.read_text(encoding="utf-8")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_the_readme_agent_prints_the_answer_from_a_server() -> None:
    example, _, agent = _python_blocks()
    namespace: dict[str, object] = {}
    _run(example, namespace)
    with FakeOpenAIServer(["Thought: it is mild.\nFinal Answer: No coat needed."]) as server:
        printed = _run(agent.replace("http://localhost:8000/v1", server.base_url), namespace)
    assert printed == "No coat needed.\n"


def test_the_readme_agent_prints_why_there_is_no_answer_when_no_server_listens() -> None:
    example, _, agent = _python_blocks()
    namespace: dict[str, object] = {}
    _run(example, namespace)
    url = f"http://127.0.0.1:{_free_port()}/v1"
    printed = _run(agent.replace("http://localhost:8000/v1", url), namespace)
    # The sentence the README gives for this case, with this test's address.
    said = re.search(r"it prints\n``(.*?)``", README.read_text(encoding="utf-8"), re.S)
    assert said is not None
    expected = " ".join(said.group(1).split()).replace("http://localhost:8000/v1", url)
    assert printed == expected + "\n"
