"""The inspector's HTTP API against a real server on 127.0.0.1 (the ``web`` extra)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

import pytest
import requests
from typing_extensions import Literal

pytest.importorskip("starlette", reason="needs the 'web' extra: pip install '.[web]' (or 'lagent-like[web]')")
pytest.importorskip("uvicorn", reason="needs the 'web' extra: pip install '.[web]' (or 'lagent-like[web]')")

from lagent_like import ActionExecutor, ActionReturn, BaseAction, tool_api
from lagent_like.actions.parser import TupleParser
from lagent_like.agents import AgentResult, ReAct
from lagent_like.web import InspectorServer, build_catalogue
from lagent_like.web import app as web_app

NO_TOKEN = "a bearer token is required: open the URL that lagent-like inspect printed (it ends in ?token=...)"
WRONG_TOKEN = (
    "the bearer token is not valid: open the URL that lagent-like inspect printed (it ends in ?token=...)"
)


class WebCalc(BaseAction, register=False):
    """Arithmetic for the inspector tests."""

    @tool_api
    def add(self, a: int, b: int = 2) -> int:
        """Add two integers.

        Args:
            a: the first number
            b: the second number
        """
        return a + b


def web_weather(city: str, unit: Literal["C", "F"] = "C", days: Optional[list[int]] = None) -> str:
    """Tell the weather in a city.

    Args:
        city: the city name
        unit: the temperature unit
        days: days ahead to forecast
    """
    return f"{city}: 21{unit} for {days or [0]}"


class WebTuple(BaseAction, register=False):
    """Repeat a word, reading arguments as a tuple."""

    def __init__(self) -> None:
        super().__init__(parser=TupleParser)

    @tool_api
    def run(self, word: str, times: int) -> str:
        """Repeat a word.

        Args:
            word: the word
            times: how many times
        """
        return word * times


class WebShell(BaseAction, register=False):
    """Pretend to run shell code (declares that it runs code)."""

    runs_code = True

    @tool_api
    def run(self, command: str) -> str:
        """Run a command.

        Args:
            command: the command line
        """
        return f"ran {command}"


@pytest.fixture
def server() -> Iterator[InspectorServer]:
    executor = ActionExecutor([WebCalc(), web_weather, WebTuple(), WebShell()])
    with InspectorServer(executor) as running:
        yield running


def _get(server: InspectorServer, path: str, **kwargs: Any) -> requests.Response:
    headers = {"Authorization": f"Bearer {server.token}", **kwargs.pop("headers", {})}
    return requests.get(server.base_url + path, headers=headers, timeout=10, **kwargs)


def _post(server: InspectorServer, path: str, body: Any, **kwargs: Any) -> requests.Response:
    headers = {"Authorization": f"Bearer {server.token}", **kwargs.pop("headers", {})}
    return requests.post(server.base_url + path, json=body, headers=headers, timeout=10, **kwargs)


def _call(server: InspectorServer, name: str, arguments: Any) -> dict[str, Any]:
    response = _post(server, "/api/call", {"name": name, "arguments": arguments})
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


# -- the token and the host ----------------------------------------------------------


def test_server_listens_on_loopback_only_with_a_token_in_its_url(server: InspectorServer) -> None:
    assert server.base_url.startswith("http://127.0.0.1:")
    assert server.url == f"{server.base_url}/?token={server.token}"
    assert len(server.token) >= 32


def test_page_opens_with_the_token_in_the_url(server: InspectorServer) -> None:
    response = requests.get(server.url, timeout=10)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert '<label for="search">Search tools</label>' in response.text
    assert '"name": "WebCalc.add"' in response.text or '"name":"WebCalc.add"' in response.text


def test_page_lets_only_its_own_script_run_and_cannot_be_framed(server: InspectorServer) -> None:
    first = requests.get(server.url, timeout=10)
    second = requests.get(server.url, timeout=10)
    policy = first.headers["Content-Security-Policy"]
    nonce = policy.split("script-src 'nonce-", 1)[1].split("'", 1)[0]
    assert f'<script nonce="{nonce}">' in first.text
    assert first.text.count("<script") == 3  # settings and catalogue (JSON, inert) and the script
    assert "frame-ancestors 'none'" in policy and "connect-src 'self'" in policy
    assert "default-src 'none'" in policy
    assert second.headers["Content-Security-Policy"] != policy
    assert first.headers["X-Content-Type-Options"] == "nosniff"
    assert first.headers["Referrer-Policy"] == "no-referrer"


@pytest.mark.parametrize(
    ("query", "message"),
    [pytest.param("", NO_TOKEN, id="no-token"), pytest.param("?token=wrong", WRONG_TOKEN, id="wrong-token")],
)
def test_page_is_refused_without_the_right_token(server: InspectorServer, query: str, message: str) -> None:
    response = requests.get(f"{server.base_url}/{query}", timeout=10)
    assert response.status_code == 401
    assert message in response.text
    assert "WebCalc" not in response.text


ENDPOINTS = [
    pytest.param("GET", "/api/tools", None, id="tools"),
    pytest.param("GET", "/api/tools/WebCalc.add", None, id="tool"),
    pytest.param("POST", "/api/call", {"name": "WebCalc.add", "arguments": {"a": 1}}, id="call"),
    pytest.param("GET", "/api/traces", None, id="traces"),
    pytest.param("GET", "/api/traces/1", None, id="trace"),
    pytest.param("POST", "/api/traces", {"trace": {}}, id="upload-trace"),
    pytest.param("POST", "/api/ask", {"question": "hi"}, id="ask"),
    pytest.param("GET", "/api/files/1", None, id="file"),
]


@pytest.mark.parametrize(("method", "path", "body"), ENDPOINTS)
@pytest.mark.parametrize(
    ("headers", "message"),
    [
        pytest.param({}, NO_TOKEN, id="no-token"),
        pytest.param({"Authorization": "Bearer wrong"}, WRONG_TOKEN, id="wrong-token"),
        pytest.param({"Authorization": "Basic abc"}, NO_TOKEN, id="other-scheme"),
    ],
)
def test_every_endpoint_refuses_a_missing_or_wrong_token(
    server: InspectorServer, method: str, path: str, body: Any, headers: dict[str, str], message: str
) -> None:
    response = requests.request(method, server.base_url + path, json=body, headers=headers, timeout=10)
    assert response.status_code == 401
    assert response.json() == {"error": message, "status": 401}


def test_a_refused_call_does_not_reach_the_tool(server: InspectorServer) -> None:
    calls: list[str] = []
    server.state.executor.register_hook(_Recorder(calls))
    requests.post(
        f"{server.base_url}/api/call", json={"name": "WebCalc.add", "arguments": {"a": 1}}, timeout=10
    )
    assert calls == []


@pytest.mark.parametrize(
    "host",
    [
        pytest.param("attacker.example", id="other-name"),
        pytest.param("127.0.0.1.attacker.example", id="rebinding-name"),
    ],
)
def test_requests_naming_another_host_are_refused_even_with_the_token(
    server: InspectorServer, host: str
) -> None:
    response = _get(server, "/api/tools", headers={"Host": host})
    assert response.status_code == 400
    assert response.text == "Invalid host header"


def test_token_may_be_given_as_a_query_parameter(server: InspectorServer) -> None:
    response = requests.get(f"{server.base_url}/api/traces?token={server.token}", timeout=10)
    assert response.status_code == 200
    assert response.json() == []


# -- the catalogue ---------------------------------------------------------------------


def test_catalogue_lists_every_api_with_what_the_model_is_told(server: InspectorServer) -> None:
    executor = server.state.executor
    catalogue = _get(server, "/api/tools").json()
    assert [entry["name"] for entry in catalogue] == ["WebCalc.add", "web_weather", "WebTuple", "WebShell"]
    calc = catalogue[0]
    assert calc["description"] == executor.get_actions_info()[0]
    assert (
        calc["description"]["parameter_description"]
        == executor.get_actions_info()[0]["parameter_description"]
    )
    assert calc["exports"]["openai"] == executor.to_openai_tools()[0]
    assert calc["exports"]["anthropic"] == executor.to_anthropic_tools()[0]
    assert calc["exports"]["mcp"] == executor.to_mcp_tools()[0]
    assert calc["schema"] == executor.json_schema("WebCalc.add")
    assert calc["tool"] == "WebCalc"
    assert calc["runs_code"] is False and calc["callable"] is True
    assert "add two integers" in calc["search"]


def test_catalogue_carries_the_strict_openai_export(server: InspectorServer) -> None:
    executor = server.state.executor
    catalogue = _get(server, "/api/tools").json()
    strict = executor.to_openai_tools(strict=True)  # type: ignore[call-arg]
    assert [entry["exports"]["openai_strict"] for entry in catalogue] == strict


def test_page_starts_with_a_short_index_and_fetches_one_entry(server: InspectorServer) -> None:
    page = requests.get(server.url, timeout=10).text
    start = page.index('<script id="catalogue" type="application/json">') + len(
        '<script id="catalogue" type="application/json">'
    )
    index = json.loads(page[start : page.index("</script>", start)])
    assert index[0] == {
        "name": "WebCalc.add",
        "tool": "WebCalc",
        "search": _get(server, "/api/tools").json()[0]["search"],
        "runs_code": False,
        "callable": True,
        "lint": [{"severity": f["severity"]} for f in _get(server, "/api/tools").json()[0]["lint"]],
    }
    assert _get(server, "/api/tools/WebCalc.add").json() == _get(server, "/api/tools").json()[0]
    assert _get(server, "/api/tools/WebCalc__add").json()["name"] == "WebCalc.add"
    missing = _get(server, "/api/tools/Nope")
    assert (missing.status_code, missing.json()["error"]) == (
        404,
        "no enabled API is named 'Nope'; the page lists the ones there are",
    )


def test_catalogue_shows_lint_findings_inline() -> None:
    class Vague(BaseAction, register=False):
        @tool_api
        def run(self, x: int) -> int:
            return x

    from lagent_like.cli.lint import lint_action

    tool = Vague()
    entry = build_catalogue(ActionExecutor([tool]))[0]
    expected = [
        {"severity": f.severity, "code": f.code, "message": f.message}
        for f in lint_action(tool)
        if f.api in ("Vague", "Vague.run")
    ]
    assert entry["lint"] == expected
    assert "no-description" in [finding["code"] for finding in entry["lint"]]


def test_catalogue_marks_code_executing_tools_not_callable_without_the_flag(server: InspectorServer) -> None:
    shell = _get(server, "/api/tools").json()[3]
    assert (shell["name"], shell["runs_code"], shell["callable"]) == ("WebShell", True, False)


def test_catalogue_refresh_sees_a_disabled_tool(server: InspectorServer) -> None:
    assert len(_get(server, "/api/tools").json()) == 4
    server.state.executor.disable("WebShell")
    assert len(_get(server, "/api/tools").json()) == 4
    assert [entry["name"] for entry in _get(server, "/api/tools?refresh=1").json()] == [
        "WebCalc.add",
        "web_weather",
        "WebTuple",
    ]


# -- calls -----------------------------------------------------------------------------


def test_form_call_sends_an_object_through_the_executor(server: InspectorServer) -> None:
    answer = _call(server, "web_weather", {"city": "Paris", "unit": "F", "days": [1, 2]})
    assert answer["record"]["state"] == 0
    assert answer["record"]["valid"] == 0
    assert answer["record"]["args"] == {"city": "Paris", "unit": "F", "days": [1, 2]}
    assert answer["items"] == [{"type": "text", "content": "Paris: 21F for [1, 2]"}]
    assert answer["record"]["errmsg"] is None
    assert answer["record"]["attempts"] == 1
    assert 0 <= answer["seconds"] < 5


def test_raw_call_reads_dirty_json_as_a_model_would_write_it(server: InspectorServer) -> None:
    answer = _call(server, "WebCalc.add", "```json\n{'a': 40, b: 2,}\n```")
    assert answer["record"]["state"] == 0
    assert answer["items"] == [{"type": "text", "content": "42"}]


def test_raw_call_reports_the_repairs_in_plain_words(server: InspectorServer) -> None:
    answer = _call(server, "WebCalc.add", "{'a': 40, 'b': 2,}")
    assert answer["record"]["state"] == 0
    assert answer["repairs"] == ["single quotes", "trailing comma"]
    assert answer["record"]["repairs"] == ["single quotes", "trailing comma"]
    assert _call(server, "WebCalc.add", '{"a": 40}')["repairs"] is None


def test_raw_call_reads_tuple_syntax_for_a_tuple_parser_tool(server: InspectorServer) -> None:
    answer = _call(server, "WebTuple", "('ab', 3)")
    assert answer["record"]["state"] == 0
    assert answer["items"] == [{"type": "text", "content": "ababab"}]


def test_call_with_bad_arguments_shows_the_executor_error(server: InspectorServer) -> None:
    answer = _call(server, "WebCalc.add", '{"a": "many"}')
    assert answer["record"]["state"] == -1001
    assert answer["record"]["result"] is None
    assert "a" in answer["record"]["errmsg"]
    assert answer["items"] == []


class _Recorder:
    def __init__(self, calls: list[str]) -> None:
        self.calls = calls

    def before_action(self, name: str, args: dict[str, Any], context: Any) -> Optional[ActionReturn]:
        self.calls.append(name)
        if args.get("a") == 13:
            return ActionReturn(args=args, type="WebCalc", errmsg="13 is refused by a hook", state=-1002)
        return None


def test_calls_go_through_the_executors_hooks(server: InspectorServer) -> None:
    calls: list[str] = []
    server.state.executor.register_hook(_Recorder(calls))
    refused = _call(server, "WebCalc.add", {"a": 13})
    allowed = _call(server, "WebCalc.add", {"a": 1})
    assert calls == ["WebCalc.add", "WebCalc.add"]
    assert (refused["record"]["state"], refused["record"]["errmsg"]) == (-1002, "13 is refused by a hook")
    assert allowed["items"] == [{"type": "text", "content": "3"}]


BAD_REQUESTS = [
    pytest.param(b"{not json", 400, "the request body is not JSON: ", id="not-json"),
    pytest.param(b"[1, 2]", 400, "the request body must be a JSON object, not list", id="not-an-object"),
    pytest.param(
        b'{"arguments": {}}', 400, "'name' is required: the API to call, e.g. 'Calc.add'", id="no-name"
    ),
    pytest.param(
        b'{"name": "WebCalc.add", "arguments": 5}',
        400,
        "'arguments' must be a string (as a model writes it) or a JSON object",
        id="arguments-a-number",
    ),
    pytest.param(
        b'{"name": "WebCalc.add", "arguments": "{}", "session_id": 3}',
        400,
        "'session_id' must be a string",
        id="session-not-a-string",
    ),
    pytest.param(
        b'{"name": "Nope.run", "arguments": "{}"}',
        404,
        "no enabled API is named 'Nope.run'; the page lists the ones there are",
        id="unknown-api",
    ),
    pytest.param(
        b'{"name": "WebShell", "arguments": {"command": "ls"}}',
        403,
        "WebShell runs code: the operator must start the inspector with --allow-code "
        "(or inspect(..., allow_code=True)) to call it from the page",
        id="code-without-flag",
    ),
]


@pytest.mark.parametrize(("body", "status", "message"), BAD_REQUESTS)
def test_bad_call_requests_get_a_readable_error(
    server: InspectorServer, body: bytes, status: int, message: str
) -> None:
    headers = {"Authorization": f"Bearer {server.token}", "Content-Type": "application/json"}
    response = requests.post(f"{server.base_url}/api/call", data=body, headers=headers, timeout=10)
    assert response.status_code == status
    assert response.json()["status"] == status
    assert response.json()["error"].startswith(message)


def test_too_large_a_body_is_refused(server: InspectorServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(web_app, "MAX_BODY_BYTES", 100)
    response = _post(server, "/api/call", {"name": "WebCalc.add", "arguments": "x" * 200})
    assert response.status_code == 413
    assert response.json()["error"] == "the request body is larger than 100 bytes"


@pytest.mark.parametrize(
    "allow_code",
    [pytest.param(True, id="allow-code-flag"), pytest.param({"WebShell"}, id="named-in-tools")],
)
def test_code_executing_tool_runs_with_the_operators_permission(allow_code: Any) -> None:
    with InspectorServer(ActionExecutor([WebShell(), WebCalc()]), allow_code=allow_code) as running:
        answer = _call(running, "WebShell", {"command": "ls"})
        assert answer["items"] == [{"type": "text", "content": "ran ls"}]
        assert _get(running, "/api/tools").json()[0]["callable"] is True


def test_code_executing_tool_named_elsewhere_stays_refused() -> None:
    with InspectorServer(ActionExecutor([WebShell()]), allow_code={"Other"}) as running:
        response = _post(running, "/api/call", {"name": "WebShell", "arguments": {"command": "ls"}})
        assert response.status_code == 403


# -- traces ----------------------------------------------------------------------------


def _recorded_result(replies: list[str]) -> AgentResult:
    it = iter(replies)
    agent = ReAct(lambda messages: next(it), ActionExecutor([WebCalc()]))
    return agent.run("What is 40 + 2?")


TRACE_REPLIES = [
    "Thought: add\nAction: WebCalc.add\nAction Input: {'a': 40, 'b': 2}",
    "I am not sure what to do",
    "Final Answer: 42",
]


def test_trace_upload_list_and_detail(server: InspectorServer) -> None:
    result = _recorded_result(TRACE_REPLIES)
    created = _post(server, "/api/traces", {"trace": result.to_dict(), "title": "run.json"})
    assert (created.status_code, created.json()) == (201, {"id": "1"})
    assert _get(server, "/api/traces").json() == [
        {"id": "1", "title": "run.json", "turns": 3, "running": False, "stop_reason": "final_answer"}
    ]
    detail = _get(server, "/api/traces/1").json()
    assert detail["answer"] == "42"
    assert [turn["outcome"] for turn in detail["turns"]] == ["action", "no_action", "final_answer"]
    assert detail["turns"][0]["action_return"]["result"] == [{"type": "text", "content": "42"}]
    assert detail["turns"][1]["model_text"] == "I am not sure what to do"
    assert detail["messages"] == result.messages


def test_traces_given_at_start_are_listed(tmp_path: Path) -> None:
    path = tmp_path / "trace.json"
    _recorded_result(TRACE_REPLIES).save(path)
    with InspectorServer(
        ActionExecutor([WebCalc()]), traces=[str(path), _recorded_result(["Final Answer: 1"])]
    ) as s:
        assert [(t["id"], t["title"], t["turns"]) for t in _get(s, "/api/traces").json()] == [
            ("1", "trace.json", 3),
            ("2", "run 2", 1),
        ]


BAD_TRACES = [
    pytest.param(
        {"trace": [1]},
        "not a lagent-like trace: expected an object with format 'lagent-like-trace'",
        id="list",
    ),
    pytest.param(
        {"trace": {"format": "lagent-like-trace", "version": 99, "turns": [], "messages": []}},
        "trace version 99 is not supported (expected 1)",
        id="version",
    ),
    pytest.param(
        {"trace": {"format": "lagent-like-trace", "version": 1, "turns": [{"index": 1}], "messages": []}},
        "trace: turn 1 is malformed: Turn.from_dict: unknown keys [], missing keys ['model_text', 'outcome']",
        id="turn",
    ),
]


@pytest.mark.parametrize(("body", "message"), BAD_TRACES)
def test_a_bad_trace_upload_gets_a_readable_error(server: InspectorServer, body: Any, message: str) -> None:
    response = _post(server, "/api/traces", body)
    assert response.status_code == 400
    assert response.json() == {"error": message, "status": 400}


def test_unknown_trace_is_404(server: InspectorServer) -> None:
    response = _get(server, "/api/traces/7")
    assert (response.status_code, response.json()["error"]) == (404, "no trace number 7")


def test_ask_without_an_agent_says_how_to_get_one(server: InspectorServer) -> None:
    response = _post(server, "/api/ask", {"question": "hi"})
    assert response.status_code == 404
    assert response.json()["error"] == "no agent: start the page with lagent-like chat --web to ask questions"


def test_ask_runs_the_agent_and_the_trace_grows_turn_by_turn() -> None:
    gate = threading.Event()
    replies = iter(['Action: WebCalc.add\nAction Input: {"a": 1}', "Final Answer: 3"])

    def model(messages: list[dict[str, Any]]) -> str:
        reply = next(replies)
        if reply.startswith("Final"):
            gate.wait(30)
        return reply

    executor = ActionExecutor([WebCalc()])
    agent = ReAct(model, executor)
    with InspectorServer(executor, agent=agent) as running:
        empty = _post(running, "/api/ask", {"question": "  "})
        assert (empty.status_code, empty.json()["error"]) == (
            400,
            "'question' is required: the text to ask the agent",
        )
        started = _post(running, "/api/ask", {"question": "1 + 2?"})
        assert (started.status_code, started.json()) == (202, {"id": "1"})
        busy = _post(running, "/api/ask", {"question": "again?"})
        assert (busy.status_code, busy.json()["error"]) == (
            409,
            "a run is still going: wait for its final answer",
        )
        deadline = time.monotonic() + 30  # guards against a hang only
        while not _get(running, "/api/traces/1").json()["turns"] and time.monotonic() < deadline:
            time.sleep(0.02)
        partial = _get(running, "/api/traces/1").json()
        assert (partial["running"], len(partial["turns"]), partial["title"]) == (True, 1, "1 + 2?")
        gate.set()
        while _get(running, "/api/traces/1").json()["running"] and time.monotonic() < deadline:
            time.sleep(0.02)
        done = _get(running, "/api/traces/1").json()
        assert (done["running"], done["answer"], done["stop_reason"]) == (False, "3", "final_answer")
        assert agent.on_turn is None


def test_page_embeds_the_catalogue_safely_in_a_script() -> None:
    def web_html(text: str) -> str:
        """Echo text containing </script><script>alert(1)</script>.

        Args:
            text: anything
        """
        return text

    with InspectorServer(ActionExecutor([web_html])) as running:
        page = requests.get(running.url, timeout=10).text
        assert "</script><script>alert(1)" not in page
        start = page.index('<script id="catalogue" type="application/json">') + len(
            '<script id="catalogue" type="application/json">'
        )
        embedded = json.loads(page[start : page.index("</script>", start)])
        assert "</script><script>alert(1)</script>." in embedded[0]["search"]


def test_the_interpreters_count_as_code_executing_tools() -> None:
    from lagent_like.tools.interpreters.ipython_interpreter import IPythonInterpreter
    from lagent_like.tools.interpreters.python_interpreter import PythonInterpreter
    from lagent_like.web import runs_code

    assert runs_code(PythonInterpreter.__new__(PythonInterpreter))
    assert runs_code(IPythonInterpreter.__new__(IPythonInterpreter))
    assert not runs_code(WebCalc())
