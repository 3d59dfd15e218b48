"""The built-in tools' constructors take Lagent's positional parameters, in Lagent's order.

So that a positional call written for Lagent (``GoogleSearch(key, 5)``) lands where Lagent
meant it. The table holds Lagent's parameters, read from Lagent's source (0.2.4; 0.5 for
the tools only 0.5 has, and 0.5 dropped the trailing ``enable``, which every built-in
keeps). What a built-in adds (``base_url``, ``timeout`` of an HTTP tool, sandbox settings,
``root``, ``allow_private_hosts``...) is keyword-only.
"""

from __future__ import annotations

import importlib.util
import inspect
from typing import Any

import pytest

from lagent_like.actions.parser import JsonParser, TupleParser
from lagent_like.toolkits._base_action import state_of
from lagent_like.tools.interpreters.ipython_interactive import AsyncIPythonInteractive, IPythonInteractive
from lagent_like.tools.interpreters.ipython_interpreter import AsyncIPythonInterpreter, IPythonInterpreter
from lagent_like.tools.interpreters.ipython_manager import IPythonInteractiveManager
from lagent_like.tools.interpreters.python_interpreter import AsyncPythonInterpreter, PythonInterpreter
from lagent_like.tools.ppt import PPT, AsyncPPT
from lagent_like.tools.web.arxiv_search import ArxivSearch, AsyncArxivSearch
from lagent_like.tools.web.bing_map import AsyncBINGMap, BINGMap
from lagent_like.tools.web.google_scholar_search import AsyncGoogleScholar, GoogleScholar
from lagent_like.tools.web.google_search import AsyncGoogleSearch, GoogleSearch
from lagent_like.tools.web.web_browser import AsyncWebBrowser, WebBrowser

TAIL = ("description", "parser", "enable")

#: Lagent's constructor parameters (self left out), and how many of them we take positionally.
LAGENT: list[tuple[tuple[type[Any], ...], tuple[str, ...], int]] = [
    ((ArxivSearch, AsyncArxivSearch), ("top_k_results", "max_query_len", "doc_content_chars_max", *TAIL), 6),
    ((BINGMap, AsyncBINGMap), ("key", *TAIL), 4),
    ((GoogleScholar, AsyncGoogleScholar), ("api_key", *TAIL), 4),
    ((GoogleSearch, AsyncGoogleSearch), ("api_key", "timeout", "search_type", *TAIL), 6),
    ((PPT, AsyncPPT), ("theme_mapping", *TAIL), 4),
    (
        (PythonInterpreter, AsyncPythonInterpreter),
        ("answer_symbol", "answer_expr", "answer_from_stdout", "timeout", *TAIL),
        7,
    ),
    # user_data_dir and work_dir mean nothing in a sandbox: positional parameters stop
    # before them, so that Lagent's positional call fails instead of misassigning.
    ((IPythonInterpreter, AsyncIPythonInterpreter), ("timeout", "user_data_dir", "work_dir", *TAIL), 1),
    ((IPythonInteractive, AsyncIPythonInteractive), ("timeout", "max_out_len", "use_signals", *TAIL), 6),
    ((IPythonInteractiveManager,), ("max_workers", "timeout", "ci_lock", *TAIL), 6),
    # Lagent 0.5 only (no enable there); ours keeps enable after parser.
    ((WebBrowser, AsyncWebBrowser), ("searcher_type", "timeout", "black_list", "topk", *TAIL), 7),
]


def _positional(cls: type[Any]) -> tuple[str, ...]:
    params = list(inspect.signature(cls).parameters.values())
    return tuple(p.name for p in params if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD)


@pytest.mark.parametrize(
    ("cls", "lagent", "taken"),
    [(cls, lagent, taken) for classes, lagent, taken in LAGENT for cls in classes],
    ids=lambda value: value.__name__ if isinstance(value, type) else "",
)
def test_positional_parameters_are_lagents(cls: type[Any], lagent: tuple[str, ...], taken: int) -> None:
    assert _positional(cls) == lagent[:taken]
    params = inspect.signature(cls).parameters
    # The rest of Lagent's that we support, and all of our own, are keyword-only.
    extras = {name: p.kind for name, p in params.items() if name not in lagent[:taken]}
    assert set(extras.values()) <= {inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.VAR_KEYWORD}
    assert {"description", "parser", "enable"} <= set(params)


def test_an_http_tools_lagent_style_positional_call() -> None:
    search = GoogleSearch("k", 7, "news", None, TupleParser, False)
    assert (search.request_timeout, search.search_type, search.base_url) == (
        7,
        "news",
        "https://google.serper.dev",
    )
    assert (search._key(), type(state_of(search).parser), search.enable) == ("k", TupleParser, False)
    arxiv = ArxivSearch(5, 100, 200)
    assert (arxiv.top_k_results, arxiv.max_query_len, arxiv.doc_content_chars_max) == (5, 100, 200)
    assert (arxiv.base_url, arxiv.request_timeout) == ("https://export.arxiv.org/api/query", 10.0)
    bing = BINGMap("bing-key", None, JsonParser, False)
    assert (bing._key(), bing.enable, bing.base_url) == (
        "bing-key",
        False,
        "https://dev.virtualearth.net/REST/V1",
    )
    scholar = GoogleScholar("serp-key")
    assert (scholar._key(), scholar.base_url, scholar.request_timeout) == (
        "serp-key",
        "https://serpapi.com",
        20.0,
    )


def test_an_http_tools_own_settings_are_keywords() -> None:
    tool = GoogleScholar("k", base_url="http://127.0.0.1:9/", timeout=3)
    assert (tool.base_url, tool.request_timeout) == ("http://127.0.0.1:9", 3)
    # The arXiv URL is a whole endpoint, kept as given.
    assert ArxivSearch(base_url="http://127.0.0.1:9/q/").base_url == "http://127.0.0.1:9/q/"
    with pytest.raises(
        TypeError, match=r"^ArxivSearch\.__init__\(\) got an unexpected keyword argument 'base_ur'$"
    ):
        ArxivSearch(base_ur="x")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="multiple values for argument 'timeout'"):
        GoogleSearch("k", 7, timeout=8)  # type: ignore[misc]
    with pytest.raises(TypeError, match="takes from 1 to 7 positional arguments but 8 were given"):
        # Lagent has no eighth parameter: a URL there is refused, not taken for base_url.
        untyped: Any = GoogleSearch
        untyped("k", 7, "search", None, JsonParser, True, "http://127.0.0.1:9")


def test_ppt_and_web_browser_lagent_style_positional_calls() -> None:
    themes = {"Default": {"title": "Title Slide"}}
    ppt = PPT(themes, None, JsonParser, False)
    assert (ppt.theme_mapping, ppt.enable, ppt.root) == (themes, False, None)
    browser = WebBrowser("GoogleSearch", 3, ["x.com"], 4)
    assert (browser.timeout, browser.black_list, browser.topk, browser.allow_private_hosts) == (
        3,
        ("x.com",),
        4,
        False,
    )


def test_python_interpreter_lagent_style_positional_call() -> None:
    tool = PythonInterpreter("answer", None, True, 5, None, JsonParser, False, isolation="process")
    try:
        assert (tool.answer_symbol, tool.answer_expr, tool.answer_from_stdout, tool.code_timeout) == (
            "answer",
            None,
            True,
            5.0,
        )
        assert (tool.enable, tool.cpu_seconds, tool.memory_mb) == (False, 30, 1024)
    finally:
        tool.close()
    with pytest.raises(
        TypeError, match=r"^PythonInterpreter\.__init__\(\) got an unexpected keyword argument 'pool'$"
    ):
        PythonInterpreter(pool=2)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match=r"^PythonInterpreter: memory_mb must be an integer, got None$"):
        PythonInterpreter(memory_mb=None, isolation="process")


def test_ipython_interpreter_takes_only_the_timeout_positionally() -> None:
    tool = IPythonInterpreter(5, isolation="process")
    try:
        assert tool._session_timeout == 5.0
        assert tool._limits.cpu_seconds is None
    finally:
        tool.close()
    # Lagent's IPythonInterpreter(20, 'ENV', './work_dir/tmp_dir'): loud, not a path in description.
    with pytest.raises(TypeError, match="takes from 1 to 2 positional arguments but 3 were given"):
        untyped: Any = IPythonInterpreter
        untyped(20, "ENV")


@pytest.mark.skipif(
    importlib.util.find_spec("IPython") is None,
    reason="needs the 'ipython' extra: pip install '.[ipython]' (or 'lagent-like[ipython]')",
)
def test_ipython_interactive_and_manager_lagent_style_positional_calls() -> None:
    shell = IPythonInteractive(5, 100, False, None, JsonParser, False, isolation="process")
    try:
        assert (shell._session_timeout, shell.use_signals, shell.enable) == (5.0, False, False)
        assert shell._worker_extra == {"max_out_len": 100}
    finally:
        shell.close()
    manager = IPythonInteractiveManager(3, 4, None, None, JsonParser, False, isolation="process")
    try:
        assert (manager.max_workers, manager.timeout, manager.ci_lock, manager.enable) == (3, 4, None, False)
    finally:
        manager.close()
