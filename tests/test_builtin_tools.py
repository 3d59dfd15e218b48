"""The tutorial's and Lagent 0.5's built-ins: BINGMap, GoogleScholar, PPT, WebBrowser, Async twins.

HTTP tools run against the local server of ``local_http_server`` (127.0.0.1 only); PPT
writes a real ``.pptx`` and reads it back with python-pptx (the ``[ppt]`` extra).
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import json
import logging
import sys
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest
from local_http_server import LocalServer, Reply
from net_guard import Guard

from lagent_like import ActionExecutor, ActionStatusCode, AsyncActionExecutor
from lagent_like.registry import BUILTIN_TOOLS
from lagent_like.tools.ppt import PPT
from lagent_like.tools.web import bing_map
from lagent_like.tools.web.bing_map import BINGMap
from lagent_like.tools.web.google_scholar_search import GoogleScholar
from lagent_like.tools.web.google_search import GoogleSearch
from lagent_like.tools.web.web_browser import SerperSearch, WebBrowser, page_text

KEY = "bing-key/+=1"


def query_of(request: dict[str, Any]) -> dict[str, list[str]]:
    return parse_qs(request["query"], keep_blank_values=True)


def output(ret: Any) -> Any:
    (item,) = ret.result
    return json.loads(item["content"])


# --- BINGMap ----------------------------------------------------------------------------

ROUTE = {
    "resourceSets": [
        {
            "resources": [
                {
                    "travelDistance": 12.5,
                    "routeLegs": [
                        {
                            "itineraryItems": [
                                {"instruction": {"text": "Head north"}},
                                {"details": []},
                                {"instruction": {"text": "Arrive"}},
                            ]
                        }
                    ],
                }
            ]
        }
    ]
}
POINT = {"resourceSets": [{"resources": [{"point": {"coordinates": [48.85, 2.35]}}]}]}
PLACES = {
    "resourceSets": [
        {
            "resources": [
                {"name": f"Cafe {n}", "Address": {"formattedAddress": f"{n} Rue X"}} for n in range(7)
            ]
        }
    ]
}


def bing(server: LocalServer, **kwargs: Any) -> BINGMap:
    return BINGMap(key=KEY, base_url=server.base, **kwargs)


def test_bing_map_get_distance_asks_for_a_driving_route_with_the_key_in_the_query(
    server: LocalServer,
) -> None:
    server.replies["/Routes/Driving"] = Reply(200, json.dumps(ROUTE))
    ret = bing(server)({"start": "Paris", "end": "Versailles"}, "get_distance")
    assert (ret.state, output(ret)) == (ActionStatusCode.SUCCESS, {"distance": 12.5})
    (request,) = server.requests
    assert query_of(request) == {"o": ["json"], "wp.0": ["Paris"], "wp.1": ["Versailles"], "key": [KEY]}


@pytest.mark.parametrize(
    ("api", "args", "path", "body", "expected"),
    [
        pytest.param(
            "get_route",
            {"start": "a", "end": "b"},
            "/Routes/Driving",
            ROUTE,
            {"route": ["Head north", "Arrive"]},
            id="route",
        ),
        pytest.param(
            "get_coordinates",
            {"location": "Paris"},
            "/Locations",
            POINT,
            {"latitude": 48.85, "longitude": 2.35},
            id="coordinates",
        ),
        pytest.param(
            "search_nearby",
            {"search_term": "cafe", "latitude": 1.5, "longitude": 2.5},
            "/LocalSearch",
            PLACES,
            {"place": [{"name": f"Cafe {n}", "address": f"{n} Rue X"} for n in range(5)]},
            id="nearby-at-most-5",
        ),
    ],
)
def test_bing_map_apis_return_lagents_keys(
    server: LocalServer, api: str, args: dict[str, Any], path: str, body: Any, expected: Any
) -> None:
    server.replies[path] = Reply(200, json.dumps(body))
    ret = bing(server)(args, api)
    assert (ret.state, output(ret)) == (ActionStatusCode.SUCCESS, expected)


def test_bing_map_search_nearby_a_named_place_looks_up_its_coordinates_first(server: LocalServer) -> None:
    server.replies["/Locations"] = Reply(200, json.dumps(POINT))
    server.replies["/LocalSearch"] = Reply(200, json.dumps(PLACES))
    bing(server)({"search_term": "cafe", "places": "Paris", "radius": 100}, "search_nearby")
    assert [r["path"] for r in server.requests] == ["/Locations", "/LocalSearch"]
    assert query_of(server.requests[1]) == {
        "query": ["cafe"],
        "userLocation": ["48.85,2.35"],
        "radius": ["100"],
        "key": [KEY],
    }


def test_bing_map_answer_without_a_route_is_an_api_error_naming_the_trip(server: LocalServer) -> None:
    server.replies["/Routes/Driving"] = Reply(200, json.dumps({"resourceSets": [{"resources": []}]}))
    ret = bing(server)({"start": "a", "end": "b"}, "get_distance")
    assert ret.state == ActionStatusCode.API_ERROR
    assert ret.errmsg == "BINGMap: Bing Maps found no route from 'a' to 'b'"


def test_bing_map_without_a_key_is_an_api_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BING_MAP_KEY", raising=False)
    ret = BINGMap(base_url="http://127.0.0.1:9")({"location": "x"}, "get_coordinates")
    assert (ret.state, ret.errmsg) == (ActionStatusCode.API_ERROR, bing_map.NO_KEY_MESSAGE)


# --- secrets: the key in every form -------------------------------------------------------------

#: A key as read from a file (trailing newline), with characters that URL-encoding changes.
FILE_KEY = "sk-a/b+c=d&e\n"
KEY_FORMS = [
    "sk-a/b+c=d&e",
    "sk-a%2Fb%2Bc%3Dd%26e",
    "sk-a/b%2Bc%3Dd%26e",
    "sk-a%2Fb%2Bc%3Dd%26e%0A",
    "sk-a/b+c=d&e\\n",
]


def test_a_key_read_from_a_file_is_stripped_before_it_is_sent(
    server: LocalServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BING_MAP_KEY", FILE_KEY)
    monkeypatch.setenv("SERPER_API_KEY", FILE_KEY)
    server.replies["/Locations"] = Reply(200, json.dumps(POINT))
    server.replies["/search"] = Reply(200, "{}")
    assert (
        BINGMap(base_url=server.base)({"location": "x"}, "get_coordinates").state == ActionStatusCode.SUCCESS
    )
    assert GoogleSearch(base_url=server.base)({"query": "x"}).state == ActionStatusCode.SUCCESS
    assert query_of(server.requests[0])["key"] == ["sk-a/b+c=d&e"]
    assert server.requests[1]["headers"]["X-API-KEY"] == "sk-a/b+c=d&e"


def test_no_form_of_a_key_reaches_an_errmsg_a_repr_or_a_log_line(
    server: LocalServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    # Servers that echo the key back in every spelling, and one that is not there.
    echo = " | ".join(KEY_FORMS)
    server.replies["/Locations"] = Reply(401, json.dumps({"message": echo}))
    server.replies["/search.json"] = Reply(400, echo, content_type="text/plain")
    server.replies["/search"] = Reply(403, echo, content_type="text/plain")
    tools: list[Any] = [
        BINGMap(key=FILE_KEY, base_url=server.base),
        BINGMap(key=FILE_KEY, base_url="http://127.0.0.1:1"),
        GoogleScholar(api_key=FILE_KEY, base_url=server.base),
        GoogleSearch(api_key=FILE_KEY, base_url=server.base),
    ]
    records = [
        tools[0]({"location": "x"}, "get_coordinates"),
        tools[1]({"location": "x"}, "get_coordinates"),
        tools[2]({"query": "x"}, "search_google_scholar"),
        tools[3]({"query": "x"}),
    ]
    assert [r.state for r in records] == [
        ActionStatusCode.HTTP_ERROR,
        ActionStatusCode.API_ERROR,
        ActionStatusCode.HTTP_ERROR,
        ActionStatusCode.HTTP_ERROR,
    ]
    assert records[0].errmsg == (
        f'BINGMap: {server.base}/Locations answered HTTP 401 Unauthorized: {{"message": "*** | *** | *** | *** | ***\\\\n"}}'
    )
    assert records[1].errmsg == "BINGMap: could not reach http://127.0.0.1:1/Locations (ConnectionError)"
    texts = [str(r.to_dict()) for r in records] + [repr(t) for t in tools] + [caplog.text]
    leaks = [(form, text) for text in texts for form in KEY_FORMS if form in text]
    assert leaks == []


# --- GoogleScholar ------------------------------------------------------------------------------

SCHOLAR = {
    "organic_results": [
        {
            "title": f"Paper {n}",
            "result_id": f"id{n}",
            "snippet": f"About {n}",
            "publication_info": {"summary": "J"},
            "inline_links": {"cited_by": {"total": 10 * n}} if n else {},
        }
        for n in range(4)
    ]
}


def scholar(server: LocalServer) -> GoogleScholar:
    return GoogleScholar(api_key="serp-key", base_url=server.base)


@pytest.mark.parametrize(
    ("api", "args", "body", "engine", "expected"),
    [
        pytest.param(
            "search_google_scholar",
            {"query": "transformers", "as_ylo": 2018},
            SCHOLAR,
            "google_scholar",
            {
                "title": ["Paper 0", "Paper 1", "Paper 2"],
                "cited_by": ["", 10, 20],
                "organic_id": ["id0", "id1", "id2"],
                "snippets": ["About 0", "About 1", "About 2"],
            },
            id="search",
        ),
        pytest.param(
            "get_author_information",
            {"author_id": "A1"},
            {
                "author": {"name": "Ada", "affiliations": "Cambridge"},
                "articles": [{"title": f"T{n}", "authors": "Ada", "year": "1843"} for n in range(5)],
            },
            "google_scholar_author",
            {
                "name": "Ada",
                "affiliations": "Cambridge",
                "website": "",
                "articles": [{"title": f"T{n}", "authors": "Ada"} for n in range(3)],
            },
            id="author",
        ),
        pytest.param(
            "get_citation_format",
            {"q": "id1"},
            {"citations": [{"title": "MLA", "snippet": "Ada. T0. 1843."}]},
            "google_scholar_cite",
            "Ada. T0. 1843.",
            id="citation",
        ),
        pytest.param(
            "get_author_id",
            {"mauthors": "Ada"},
            {"profiles": [{"author_id": "A1", "name": "Ada"}]},
            "google_scholar_profiles",
            {"author_id": "A1"},
            id="author-id",
        ),
    ],
)
def test_google_scholar_apis_ask_serpapis_engines_and_return_lagents_keys(
    server: LocalServer, api: str, args: dict[str, Any], body: Any, engine: str, expected: Any
) -> None:
    server.replies["/search.json"] = Reply(200, json.dumps(body))
    ret = scholar(server)(args, api)
    assert ret.state == ActionStatusCode.SUCCESS
    assert ret.result is not None
    content = ret.result[0]["content"]
    assert (json.loads(content) if isinstance(expected, dict) else content) == expected
    assert query_of(server.requests[0])["engine"] == [engine]
    assert query_of(server.requests[0])["api_key"] == ["serp-key"]


def test_google_scholar_sends_only_given_parameters_and_booleans_as_serpapi_spells_them(
    server: LocalServer,
) -> None:
    server.replies["/search.json"] = Reply(200, json.dumps({"profiles": [{"author_id": "A1"}]}))
    scholar(server)({"mauthors": "Ada", "no_cache": True}, "get_author_id")
    assert query_of(server.requests[0]) == {
        "engine": ["google_scholar_profiles"],
        "mauthors": ["Ada"],
        "hl": ["en"],
        "no_cache": ["true"],
        "async": ["false"],
        "output": ["json"],
        "api_key": ["serp-key"],
    }


def test_google_scholar_reports_serpapis_own_error(server: LocalServer) -> None:
    server.replies["/search.json"] = Reply(200, json.dumps({"error": "Invalid API key."}))
    ret = scholar(server)({"query": "x"}, "search_google_scholar")
    assert (ret.state, ret.errmsg) == (ActionStatusCode.API_ERROR, "GoogleScholar: SerpApi: Invalid API key.")


# --- GoogleSearch: Lagent's _search hook ----------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "state", "errmsg", "result"),
    [
        pytest.param(
            (200, {"answerBox": {"answer": "Beijing"}}),
            ActionStatusCode.SUCCESS,
            None,
            [{"type": "text", "content": "Answer box: Beijing"}],
            id="200",
        ),
        pytest.param(
            (403, {"message": "bad requests"}), ActionStatusCode.API_ERROR, "403", None, id="status"
        ),
        pytest.param(
            (-1, "HTTPSConnectionPool"), ActionStatusCode.HTTP_ERROR, "HTTPSConnectionPool", None, id="-1"
        ),
    ],
)
def test_google_search_answers_from_an_overridden_search_hook_as_lagent_does(
    monkeypatch: pytest.MonkeyPatch, answer: Any, state: int, errmsg: Any, result: Any
) -> None:
    calls: list[Any] = []

    def fake_search(self: GoogleSearch, search_term: str, search_type: Any = None, **kwargs: Any) -> Any:
        calls.append((search_term, kwargs))
        return answer

    monkeypatch.setattr(GoogleSearch, "_search", fake_search)
    ret = GoogleSearch(api_key="abc")({"query": "What's the capital of China?"})
    assert (ret.state, ret.errmsg, ret.result) == (state, errmsg, result)
    assert calls == [("What's the capital of China?", {"k": 10})]


# --- PPT ----------------------------------------------------------------------------------------


@pytest.fixture
def pptx() -> Any:
    return pytest.importorskip(
        "pptx", reason="needs the 'ppt' extra: pip install '.[ppt]' (or 'lagent-like[ppt]')"
    )


def test_ppt_writes_a_deck_that_python_pptx_reads_back(pptx: Any, tmp_path: Path) -> None:
    from PIL import Image

    image = tmp_path / "dot.png"
    Image.new("RGB", (40, 20), "red").save(image)
    target = tmp_path / "deck.pptx"
    executor = ActionExecutor([PPT(root=str(tmp_path))])
    steps = [
        ("create_file", {"theme": "Default", "abs_location": str(target)}, {"status": "created a ppt file."}),
        ("add_first_page", {"title": "Agents", "subtitle": "on tools"}, {"status": "added page"}),
        ("add_text_page", {"title": "Why", "bullet_items": "one [SPAN] two"}, {"status": "added page"}),
        (
            "add_text_image_page",
            {"title": "Look", "bullet_items": "red", "image": str(image)},
            {"status": "added page"},
        ),
        ("submit_file", {}, {"status": f"submitted. view ppt at {target}"}),
    ]
    for api, args, expected in steps:
        ret = executor(f"PPT.{api}", args)
        assert (ret.state, output(ret)) == (ActionStatusCode.SUCCESS, expected), ret.errmsg
    deck = pptx.Presentation(str(target))
    slides = list(deck.slides)
    assert [s.shapes.title.text for s in slides] == ["Agents", "Why", "Look"]
    assert [p.text for p in slides[1].placeholders[1].text_frame.paragraphs] == ["one", "two"]
    pictures = [shape for shape in slides[2].shapes if shape.shape_type == 13]  # MSO_SHAPE_TYPE.PICTURE
    assert len(pictures) == 1
    assert pictures[0].image.ext == "png"


@pytest.mark.parametrize(
    ("api", "args", "errmsg"),
    [
        pytest.param(
            "create_file",
            {"theme": "Default", "abs_location": "{root}/../escape.pptx"},
            "PPT: the file '{root}/../escape.pptx' is outside the allowed directory {root}",
            id="dot-dot",
        ),
        pytest.param(
            "create_file",
            {"theme": "Default", "abs_location": "{root}/link/x.pptx"},
            "PPT: the file '{root}/link/x.pptx' is outside the allowed directory {root}",
            id="symlink",
        ),
        pytest.param(
            "create_file",
            {"theme": "Default", "abs_location": "{root}/x.py"},
            "PPT: abs_location must end with .pptx, got '{root}/x.py'",
            id="not-pptx",
        ),
        pytest.param(
            "create_file",
            {"theme": "Neon", "abs_location": "{root}/x.pptx"},
            "PPT: unknown theme 'Neon'; use one of ['Default']",
            id="theme",
        ),
        pytest.param(
            "add_text_page",
            {"title": "t", "bullet_items": "b"},
            "PPT: no presentation yet; call create_file first",
            id="no-deck",
        ),
    ],
)
def test_ppt_refuses_paths_outside_its_root_and_calls_out_of_order(
    tmp_path: Path, api: str, args: dict[str, str], errmsg: str
) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "link").symlink_to(tmp_path)
    filled = {name: value.format(root=root) for name, value in args.items()}
    ret = PPT(root=str(root))(filled, api)
    assert (ret.state, ret.errmsg) == (ActionStatusCode.API_ERROR, errmsg.format(root=root))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["root"]


# --- WebBrowser -----------------------------------------------------------------------------------

PAGE = """<html><head><title>T</title><style>p {color: red}</style></head>
<body><script>alert(1)</script><h1>Paris</h1><p>The capital
   of France.</p><ul><li>one</li><li>two &amp; three</li></ul></body></html>"""


def test_page_text_keeps_readable_text_one_block_per_line() -> None:
    assert page_text(PAGE) == "Paris\nThe capital of France.\none\ntwo & three"


def browser(server: LocalServer, **kwargs: Any) -> WebBrowser:
    searcher = SerperSearch(api_key="k", base_url=server.base)
    return WebBrowser(searcher_type=searcher, allow_private_hosts=True, **kwargs)


def test_web_browser_searches_merges_queries_and_selects_pages(server: LocalServer) -> None:
    organic = [
        {"link": f"{server.base}/a", "title": "A", "snippet": "about a"},
        {"link": "https://youtube.com/x", "title": "Y", "snippet": "video"},
        {"link": f"{server.base}/b", "title": "B", "snippet": "about b"},
    ]
    server.replies["/search"] = Reply(200, json.dumps({"organic": organic}))
    server.replies["/a"] = Reply(200, PAGE, content_type="text/html; charset=utf-8")
    tool = browser(server)
    executor = ActionExecutor([tool])
    found = output(executor("WebBrowser.search", {"query": ["q1", "q2"]}))
    assert found == {
        "0": {"url": f"{server.base}/a", "summ": "about a\nabout a", "title": "A"},
        "1": {"url": f"{server.base}/b", "summ": "about b\nabout b", "title": "B"},
    }
    # /b answers 404: a page that cannot be read is left out, as in Lagent.
    selected = output(executor("WebBrowser.select", {"select_ids": [0, 1, 7]}))
    assert selected == {
        "0": {
            "url": f"{server.base}/a",
            "title": "A",
            "content": "Paris\nThe capital of France.\none\ntwo & three",
        }
    }


def test_web_browser_select_before_search_tells_the_model_to_search(server: LocalServer) -> None:
    ret = browser(server)({"select_ids": [0]}, "select")
    assert ret.errmsg == "WebBrowser: no search results to select from; call search first"


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        pytest.param(
            "http://127.0.0.1:9/admin",
            {"error": "WebBrowser: 127.0.0.1 is a private or local address; not opened"},
            id="loopback",
        ),
        pytest.param(
            "http://169.254.169.254/latest/meta-data",
            {"error": "WebBrowser: 169.254.169.254 is a private or local address; not opened"},
            id="metadata",
        ),
        pytest.param(
            "http://10.1.2.3/",
            {"error": "WebBrowser: 10.1.2.3 is a private or local address; not opened"},
            id="private",
        ),
        pytest.param(
            "file:///etc/passwd",
            {"error": "WebBrowser: only http:// and https:// URLs can be opened, got 'file:///etc/passwd'"},
            id="file",
        ),
    ],
)
def test_web_browser_open_url_refuses_local_addresses_by_default(
    guard: Guard, url: str, expected: dict[str, str]
) -> None:
    ret = WebBrowser(searcher_type="GoogleSearch")({"url": url}, "open_url")
    assert (ret.state, output(ret)) == (ActionStatusCode.SUCCESS, expected)
    assert guard.attempts == []  # refused before any connection


def test_web_browser_open_url_reads_a_page_as_text(server: LocalServer) -> None:
    server.replies["/p"] = Reply(200, PAGE, content_type="text/html")
    ret = browser(server)({"url": f"{server.base}/p"}, "open_url")
    assert output(ret) == {"type": "text", "content": "Paris\nThe capital of France.\none\ntwo & three"}


def test_a_body_over_the_size_cap_is_refused(server: LocalServer) -> None:
    server.replies["/p"] = Reply(200, "x" * 100_000, content_type="text/plain")
    from lagent_like._net.http import http_request
    from lagent_like.exceptions import ToolError

    with pytest.raises(
        ToolError, match=r"^T: http://127\.0\.0\.1:\d+/p answered with more than 50000 bytes; not read$"
    ):
        http_request("T", "GET", f"{server.base}/p", timeout=5, max_bytes=50_000)


# --- Async twins ----------------------------------------------------------------------------------

TWINS = [
    ("arxiv_search", "ArxivSearch"),
    ("bing_map", "BINGMap"),
    ("google_scholar_search", "GoogleScholar"),
    ("google_search", "GoogleSearch"),
    ("ipython_interpreter", "IPythonInterpreter"),
    ("ppt", "PPT"),
    ("python_interpreter", "PythonInterpreter"),
    ("web_browser", "WebBrowser"),
]


@pytest.mark.parametrize(("module", "name"), [pytest.param(m, n, id=n) for m, n in TWINS])
def test_every_builtin_has_an_async_twin_at_lagents_path_with_the_same_description(
    module: str, name: str
) -> None:
    mod = importlib.import_module(f"lagent_like.actions.{module}")
    sync, twin = getattr(mod, name), getattr(mod, f"Async{name}")
    # Lagent's path re-exports the tool module's classes (``lagent_like.tools.web``/``.interpreters``).
    assert twin.__module__ == sync.__module__ == BUILTIN_TOOLS[name]
    assert issubclass(twin, sync)
    assert twin.__tool_description__ == {**sync.__tool_description__, "name": f"Async{name}"}
    assert all(inspect.iscoroutinefunction(getattr(twin, attr)) for attr in twin.__tool_apis__)


def test_an_async_twin_runs_the_sync_core_when_awaited(server: LocalServer) -> None:
    server.replies["/Locations"] = Reply(200, json.dumps(POINT))
    twin: Any = bing_map.AsyncBINGMap(key=KEY, base_url=server.base)

    async def main() -> Any:
        direct = await twin.get_coordinates("Paris")
        through_call = await twin({"location": "Paris"}, "get_coordinates")
        through_executor = await AsyncActionExecutor([twin])(
            "AsyncBINGMap.get_coordinates", {"location": "x"}
        )
        return direct, through_call, through_executor

    direct, through_call, through_executor = asyncio.run(main())
    assert direct == {"latitude": 48.85, "longitude": 2.35}
    assert output(through_call) == output(through_executor) == direct
    assert len(server.requests) == 3


def test_the_twins_are_listed_after_every_sync_builtin() -> None:
    from lagent_like import list_tools

    names = list_tools()
    start = names.index("WebBrowser") + 1
    assert names[start : start + len(TWINS)] == [f"Async{name}" for _, name in TWINS]


# --- descriptions: Lagent's, byte for byte -------------------------------------------------------


@pytest.mark.parametrize("name", ["ArxivSearch", "BINGMap", "GoogleScholar", "GoogleSearch", "PPT"])
def test_builtin_descriptions_are_the_ones_lagent_0_2_4_gives(name: str) -> None:
    from record_lagent_builtins import FIXTURES, without_parameter_description

    from lagent_like import get_tool_cls

    recorded = json.loads(FIXTURES["0.2"].read_text(encoding="utf-8"))[name]
    assert without_parameter_description(get_tool_cls(name)().description) == recorded


LAGENT05_TOOLS = ["ArxivSearch", "BINGMap", "GoogleScholar", "GoogleSearch", "PPT", "WebBrowser"]


def _lagent05_expected(name: str) -> Any:
    """Lagent 0.5's description of ``name``, with lagent_like's two documented differences."""
    from record_lagent_builtins import FIXTURES

    recorded = json.loads(FIXTURES["0.5"].read_text(encoding="utf-8"))
    expected = recorded[name]
    if name.endswith("WebBrowser"):
        apis = {api["name"]: api for api in expected["api_list"]}
        # Lagent reads its sync search docstring (no blank line before 'Args:') as all
        # description, and its async twin's as intended; lagent_like reads both as intended.
        apis["search"] = next(a for a in recorded["AsyncWebBrowser"]["api_list"] if a["name"] == "search")
        # lagent_like describes a list[int] parameter as an Array, Lagent as a NUMBER.
        apis["select"] = {
            **apis["select"],
            "parameters": [{**apis["select"]["parameters"][0], "type": "Array"}],
        }
        expected = {**expected, "api_list": [apis[api["name"]] for api in expected["api_list"]]}
    return expected


@pytest.mark.parametrize("name", LAGENT05_TOOLS + [f"Async{n}" for n in LAGENT05_TOOLS])
def test_builtin_and_twin_descriptions_are_the_ones_lagent_0_5_gives(name: str) -> None:
    from record_lagent_builtins import without_parameter_description

    from lagent_like import get_tool_cls

    tool = get_tool_cls(name)(**({"searcher_type": "GoogleSearch"} if name.endswith("WebBrowser") else {}))
    assert without_parameter_description(tool.description) == _lagent05_expected(name)


def test_async_google_search_takes_lagent_0_5s_coroutine_search_override(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from lagent_like.tools.web.google_search import AsyncGoogleSearch

    async def fake_search(self: Any, search_term: str, search_type: Any = None, **kwargs: Any) -> Any:
        return 200, {"answerBox": {"answer": "Beijing"}}

    monkeypatch.setattr(AsyncGoogleSearch, "_search", fake_search)
    tool: Any = AsyncGoogleSearch(api_key="abc")
    ret = asyncio.run(tool({"query": "capital of China"}))
    assert (ret.state, ret.result) == (
        ActionStatusCode.SUCCESS,
        [{"type": "text", "content": "Answer box: Beijing"}],
    )


def test_web_browser_search_that_fails_for_every_query_says_why(server: LocalServer) -> None:
    server.replies["/search"] = Reply(403, '{"message": "Unauthorized."}')
    ret = browser(server)({"query": ["q1", "q2"]}, "search")
    assert (ret.state, ret.errmsg) == (
        ActionStatusCode.API_ERROR,
        "WebBrowser: every search failed: "
        f'\'q1\': GoogleSearch: {server.base}/search answered HTTP 403 Forbidden: {{"message": "Unauthorized."}}; '
        f'\'q2\': GoogleSearch: {server.base}/search answered HTTP 403 Forbidden: {{"message": "Unauthorized."}}',
    )


def test_ppt_without_the_extra_says_which_extra_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pptx", None)  # as if python-pptx were not installed
    ret = PPT()({"theme": "Default", "abs_location": str(tmp_path / "x.pptx")}, "create_file")
    assert (ret.state, ret.errmsg) == (
        ActionStatusCode.API_ERROR,
        "PPT needs python-pptx: pip install 'lagent-like[ppt]' (from a clone: pip install '.[ppt]')",
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("tool_class", ["ArxivSearch", "BINGMap", "GoogleScholar", "PPT", "WebBrowser"])
@pytest.mark.parametrize("twin", ["", "Async"])
def test_builtin_toolkits_announce_lagents_bare_object_result(tool_class: str, twin: str) -> None:
    """Their return annotations are Lagent's ``dict`` at run time (``tools/_api_types``): MCP's
    ``outputSchema`` is ``{'type': 'object'}``, not ``dict[str, Any]``'s."""
    from lagent_like.executors._exports import mcp_extras
    from lagent_like.registry import get_tool
    from lagent_like.toolkits._base_action import api_specs

    tool = get_tool(twin + tool_class)
    extras = {key: mcp_extras(tool, key).get("outputSchema") for key in api_specs(tool)}
    assert extras and set(map(str, extras.values())) == {"{'type': 'object'}"}


def test_google_search_announces_no_object_result() -> None:
    from lagent_like.executors._exports import mcp_extras

    assert "outputSchema" not in mcp_extras(GoogleSearch(), "run")


def test_the_web_api_base_is_not_a_tool() -> None:
    from lagent_like import list_tools

    assert "WebApiTool" not in list_tools()
