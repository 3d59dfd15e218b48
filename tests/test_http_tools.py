"""The HTTP tools (``ArxivSearch``, ``GoogleSearch``) against a local server only.

A fixture runs ``http.server`` on 127.0.0.1 (ephemeral port) in a thread; each test
sets, per path, the status, body and delay it answers with, and reads back how many
requests arrived. No request leaves 127.0.0.1.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from local_http_server import LocalServer, Reply

from lagent_like import ActionExecutor, ActionStatusCode, JsonParser, ToolError
from lagent_like._net.http import REDACTED, redact
from lagent_like.runtime.policies import RetryPolicy
from lagent_like.tools.web.arxiv_search import NO_RESULT, ArxivSearch
from lagent_like.tools.web.google_search import NO_KEY_MESSAGE, GoogleSearch

KEY = "sk-secret-123"


ATOM_FEED = """<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <link href="http://arxiv.org/api/query?search_query%3Dattention&amp;id_list%3D&amp;start%3D0&amp;max_results%3D3" rel="self" type="application/atom+xml"/>
  <title type="html">ArXiv Query: search_query=attention&amp;id_list=&amp;start=0&amp;max_results=3</title>
  <id>http://arxiv.org/api/8Gp2Qx2bXq1</id>
  <updated>2024-05-01T00:00:00-04:00</updated>
  <opensearch:totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">2</opensearch:totalResults>
  <opensearch:startIndex xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">0</opensearch:startIndex>
  <opensearch:itemsPerPage xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">3</opensearch:itemsPerPage>
  <entry>
    <id>http://arxiv.org/abs/1706.03762v7</id>
    <updated>2023-08-02T00:41:18Z</updated>
    <published>2017-06-12T17:57:34Z</published>
    <title>Attention Is All You
  Need</title>
    <summary>  The dominant sequence transduction models are based on complex recurrent or
convolutional neural networks. We propose a new simple network architecture,
the Transformer.
</summary>
    <author>
      <name>Ashish Vaswani</name>
    </author>
    <author>
      <name>Noam Shazeer</name>
    </author>
    <arxiv:comment xmlns:arxiv="http://arxiv.org/schemas/atom">15 pages, 5 figures</arxiv:comment>
    <link href="http://arxiv.org/abs/1706.03762v7" rel="alternate" type="text/html"/>
    <arxiv:primary_category xmlns:arxiv="http://arxiv.org/schemas/atom" term="cs.CL" scheme="http://arxiv.org/schemas/atom"/>
  </entry>
  <entry>
    <id>http://arxiv.org/abs/1409.0473v7</id>
    <updated>2016-05-19T21:53:22Z</updated>
    <published>2014-09-01T16:33:02Z</published>
    <title>Neural Machine Translation by Jointly Learning to Align and Translate</title>
    <summary>Neural machine translation is a recently proposed approach.</summary>
    <author>
      <name>Dzmitry Bahdanau</name>
    </author>
  </entry>
</feed>
"""

PAPER_1 = (
    "Published: 2017-06-12\n"
    "Title: Attention Is All You Need\n"
    "Authors: Ashish Vaswani, Noam Shazeer\n"
    "Summary: The dominant sequence transduction models are based on complex recurrent or "
    "convolutional neural networks. We propose a new simple network architecture, the Transformer."
)
PAPER_2 = (
    "Published: 2014-09-01\n"
    "Title: Neural Machine Translation by Jointly Learning to Align and Translate\n"
    "Authors: Dzmitry Bahdanau\n"
    "Summary: Neural machine translation is a recently proposed approach."
)

EMPTY_FEED = '<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>q</title></feed>'

SERPER_ANSWER = {
    "searchParameters": {"q": "capital of france", "type": "search", "engine": "google"},
    "answerBox": {"title": "France / Capital", "answer": "Paris"},
    "knowledgeGraph": {
        "title": "Paris",
        "type": "Capital of France",
        "description": "Paris is the capital and most populous city of France.",
        "attributes": {"Population": "2.1 million (2020)", "Mayor": "Anne Hidalgo"},
    },
    "organic": [
        {
            "title": "Paris - Wikipedia",
            "link": "https://en.wikipedia.org/wiki/Paris",
            "snippet": "Paris is the capital\nand largest city of France.",
            "position": 1,
        },
        {
            "title": "Paris travel guide",
            "link": "https://example.org/paris",
            "snippet": "Visit Paris.",
            "position": 2,
        },
        {"title": "Third result", "link": "https://example.org/3", "position": 3},
    ],
}

SERPER_TEXT = (
    "Answer box (France / Capital): Paris\n"
    "Knowledge graph: Paris (Capital of France): Paris is the capital and most populous city of France.\n"
    "  Population: 2.1 million (2020)\n"
    "  Mayor: Anne Hidalgo\n"
    "Results:\n"
    "1. Paris - Wikipedia\n"
    "   https://en.wikipedia.org/wiki/Paris\n"
    "   Paris is the capital and largest city of France.\n"
    "2. Paris travel guide\n"
    "   https://example.org/paris\n"
    "   Visit Paris.\n"
    "3. Third result\n"
    "   https://example.org/3"
)


def arxiv(server: LocalServer, **kwargs: Any) -> ArxivSearch:
    return ArxivSearch(base_url=f"{server.base}/api/query", **kwargs)


def google(server: LocalServer, **kwargs: Any) -> GoogleSearch:
    return GoogleSearch(api_key=KEY, base_url=server.base, **kwargs)


def content(ret: Any) -> Any:
    """The ``content`` member of a toolkit API's dict output (rendered as JSON text)."""
    (item,) = ret.result
    assert item["type"] == "text"
    return json.loads(item["content"])["content"]


def serve_feed(server: LocalServer, feed: str = ATOM_FEED, status: int = 200) -> None:
    server.replies["/api/query"] = Reply(status, feed, content_type="application/atom+xml")


# --- ArxivSearch: description -------------------------------------------------------


def test_arxiv_search_description_in_the_executor_is_lagents() -> None:
    info = ActionExecutor(actions=[ArxivSearch()]).get_actions_info()
    assert info[0] == {
        "name": "ArxivSearch.get_arxiv_article_information",
        "description": "Run Arxiv search and get the article meta information.",
        "parameters": [{"name": "query", "type": "STRING", "description": "the content of search query"}],
        "required": ["query"],
        "return_data": [
            {"name": "content", "description": "a list of 3 arxiv search papers", "type": "STRING"}
        ],
        "parameter_description": JsonParser.PARAMETER_DESCRIPTION,
    }


def test_importing_the_http_tools_does_not_import_requests() -> None:
    import subprocess
    import sys

    code = (
        "import sys, lagent_like.tools.web.arxiv_search, lagent_like.tools.web.google_search;"
        "print('requests' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --- ArxivSearch: results -----------------------------------------------------------


def test_arxiv_search_turns_the_atom_feed_into_published_title_authors_summary(server: LocalServer) -> None:
    serve_feed(server)
    ret = arxiv(server)({"query": "attention"}, "get_arxiv_article_information")
    assert ret.state == ActionStatusCode.SUCCESS
    assert ret.errmsg is None
    assert ret.type == "ArxivSearch"
    assert content(ret) == PAPER_1 + "\n\n" + PAPER_2


def test_arxiv_search_sends_the_query_and_top_k_as_parameters(server: LocalServer) -> None:
    serve_feed(server)
    arxiv(server, top_k_results=5)('{"query": "quantum error correction"}', "get_arxiv_article_information")
    (request,) = server.requests
    assert request["method"] == "GET"
    assert request["query"] == "search_query=quantum+error+correction&start=0&max_results=5"


def test_arxiv_search_keeps_top_k_results_even_if_the_feed_has_more(server: LocalServer) -> None:
    serve_feed(server)
    ret = arxiv(server, top_k_results=1)({"query": "attention"}, "get_arxiv_article_information")
    assert content(ret) == PAPER_1


def test_arxiv_search_cuts_the_query_to_max_query_len(server: LocalServer) -> None:
    serve_feed(server)
    arxiv(server, max_query_len=5)({"query": "attention mechanisms"}, "get_arxiv_article_information")
    assert server.requests[0]["query"].startswith("search_query=atten&")


def test_arxiv_search_caps_the_text_at_doc_content_chars_max(server: LocalServer) -> None:
    serve_feed(server)
    ret = arxiv(server, doc_content_chars_max=40)({"query": "attention"}, "get_arxiv_article_information")
    assert content(ret) == PAPER_1[:40]


def test_arxiv_search_without_entries_says_nothing_was_found(server: LocalServer) -> None:
    serve_feed(server, EMPTY_FEED)
    ret = arxiv(server)({"query": "zzzz"}, "get_arxiv_article_information")
    assert content(ret) == NO_RESULT


def test_arxiv_search_reports_arxivs_error_entry(server: LocalServer) -> None:
    feed = (
        '<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>http://arxiv.org/api/errors#incorrect_id_format</id>'
        "<title>Error</title><summary>incorrect id format for 1234</summary></entry></feed>"
    )
    serve_feed(server, feed)
    ret = arxiv(server)({"query": "id:1234"}, "get_arxiv_article_information")
    assert ret.state == ActionStatusCode.API_ERROR
    assert ret.errmsg == "ArxivSearch: the arXiv API rejected the query: incorrect id format for 1234"


# --- malformed bodies -----------------------------------------------------------------


def test_arxiv_search_truncated_feed_is_an_api_error(server: LocalServer) -> None:
    serve_feed(server, ATOM_FEED[:700])
    ret = arxiv(server)({"query": "attention"}, "get_arxiv_article_information")
    assert ret.state == ActionStatusCode.API_ERROR
    assert ret.result is None
    assert ret.errmsg is not None
    assert ret.errmsg.startswith("ArxivSearch: the arXiv API answered with malformed XML (")


def test_arxiv_search_invalid_xml_is_an_api_error(server: LocalServer) -> None:
    serve_feed(server, "this is not xml")
    ret = arxiv(server)({"query": "attention"}, "get_arxiv_article_information")
    assert ret.state == ActionStatusCode.API_ERROR
    assert (
        ret.errmsg
        == "ArxivSearch: the arXiv API answered with malformed XML (syntax error: line 1, column 0)"
    )


def test_arxiv_search_xml_that_is_not_an_atom_feed_is_an_api_error(server: LocalServer) -> None:
    serve_feed(server, "<html><body>maintenance</body></html>")
    ret = arxiv(server)({"query": "attention"}, "get_arxiv_article_information")
    assert ret.state == ActionStatusCode.API_ERROR
    assert ret.errmsg == "ArxivSearch: the arXiv API answered with 'html', not an Atom feed"


def test_google_search_invalid_json_is_an_api_error(server: LocalServer) -> None:
    server.replies["/search"] = Reply(200, '{"organic": [')
    ret = google(server)({"query": "paris"})
    assert ret.state == ActionStatusCode.API_ERROR
    assert ret.errmsg == "GoogleSearch: the Serper API answered with invalid JSON"


def test_google_search_json_that_is_not_an_object_is_an_api_error(server: LocalServer) -> None:
    server.replies["/search"] = Reply(200, "[1, 2]")
    ret = google(server)({"query": "paris"})
    assert ret.state == ActionStatusCode.API_ERROR
    assert ret.errmsg == "GoogleSearch: the Serper API answered with a JSON list, not an object"


# --- HTTP failures --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (
            429,
            "ArxivSearch: {base}/api/query is rate limiting requests (HTTP 429 Too Many Requests); try again later",
        ),
        (500, "ArxivSearch: {base}/api/query failed with HTTP 500 Internal Server Error; try again later"),
        (503, "ArxivSearch: {base}/api/query failed with HTTP 503 Service Unavailable; try again later"),
    ],
)
def test_rate_limits_and_server_errors_are_transient_api_errors(
    server: LocalServer, status: int, message: str
) -> None:
    serve_feed(server, "busy", status=status)
    ret = arxiv(server)({"query": "attention"}, "get_arxiv_article_information")
    assert ret.state == ActionStatusCode.API_ERROR
    assert ret.errmsg == message.format(base=server.base)


@pytest.mark.parametrize("status", [429, 500])
def test_transient_failures_are_retried_by_the_executors_retry_policy(
    server: LocalServer, status: int
) -> None:
    serve_feed(server, "busy", status=status)
    executor = ActionExecutor([arxiv(server)], retry=RetryPolicy(max_attempts=3, base_delay=0, jitter=0))
    ret = executor("ArxivSearch.get_arxiv_article_information", '{"query": "attention"}')
    assert server.count("/api/query") == 3
    assert ret.attempts == 3
    assert ret.state == ActionStatusCode.API_ERROR
    assert ret.errmsg is not None
    assert ret.errmsg.startswith(f"ArxivSearch: {server.base}/api/query ")


def test_a_retried_call_succeeds_once_the_server_recovers(server: LocalServer) -> None:
    serve_feed(server, "busy", status=503)
    sleeps: list[float] = []

    def recover(delay: float) -> None:
        sleeps.append(delay)
        serve_feed(server)

    executor = ActionExecutor(
        [arxiv(server)], retry=RetryPolicy(max_attempts=3, base_delay=0, jitter=0), sleep=recover
    )
    ret = executor("ArxivSearch.get_arxiv_article_information", {"query": "attention"})
    assert ret.state == ActionStatusCode.SUCCESS
    assert ret.attempts == 2
    assert server.count("/api/query") == 2


def test_a_client_error_is_an_http_error_naming_the_status(server: LocalServer) -> None:
    tool = ArxivSearch(base_url=f"{server.base}/missing")
    ret = tool({"query": "attention"}, "get_arxiv_article_information")
    assert ret.state == ActionStatusCode.HTTP_ERROR
    assert ret.errmsg == f"ArxivSearch: {server.base}/missing answered HTTP 404 Not Found: no such page"
    assert ret.result is None
    assert ret.type == "ArxivSearch"
    assert ret.args == {"query": "attention"}


def test_a_client_error_is_not_retried(server: LocalServer) -> None:
    server.replies["/search"] = Reply(403, '{"message": "Unauthorized."}')
    executor = ActionExecutor([google(server)], retry=RetryPolicy(max_attempts=3, base_delay=0, jitter=0))
    ret = executor("GoogleSearch", {"query": "paris"})
    assert ret.state == ActionStatusCode.HTTP_ERROR
    assert (
        ret.errmsg
        == f'GoogleSearch: {server.base}/search answered HTTP 403 Forbidden: {{"message": "Unauthorized."}}'
    )
    assert server.count("/search") == 1


def test_a_server_that_never_answers_times_out_quickly_with_a_clear_message(server: LocalServer) -> None:
    server.replies["/api/query"] = Reply(200, ATOM_FEED, delay=30)
    # Quickly: at the tool's 0.3 s, not at the server's 30 s (that would be a success).
    ret = arxiv(server, timeout=0.3)({"query": "attention"}, "get_arxiv_article_information")
    assert ret.state == ActionStatusCode.API_ERROR
    assert ret.errmsg == f"ArxivSearch: no answer from {server.base}/api/query within 0.3 s"


def test_a_refused_connection_is_a_transient_api_error() -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    tool = ArxivSearch(base_url=f"http://127.0.0.1:{port}/api/query", timeout=2)
    ret = tool({"query": "attention"}, "get_arxiv_article_information")
    assert ret.state == ActionStatusCode.API_ERROR
    assert ret.errmsg == f"ArxivSearch: could not reach http://127.0.0.1:{port}/api/query (ConnectionError)"


# --- GoogleSearch ---------------------------------------------------------------------


def test_google_search_posts_query_and_k_with_the_key_in_a_header(server: LocalServer) -> None:
    server.replies["/search"] = Reply(200, json.dumps(SERPER_ANSWER))
    google(server)({"query": "capital of france", "k": 3})
    (request,) = server.requests
    assert request["method"] == "POST"
    assert request["headers"]["X-API-KEY"] == KEY
    assert json.loads(request["body"]) == {"q": "capital of france", "num": 3}


def test_google_search_formats_answer_box_knowledge_graph_and_organic_results(server: LocalServer) -> None:
    server.replies["/search"] = Reply(200, json.dumps(SERPER_ANSWER))
    ret = google(server)({"query": "capital of france"})
    assert ret.state == ActionStatusCode.SUCCESS
    assert ret.result == [{"type": "text", "content": SERPER_TEXT}]


def test_google_search_keeps_the_first_k_results(server: LocalServer) -> None:
    answer = {"organic": SERPER_ANSWER["organic"]}
    server.replies["/search"] = Reply(200, json.dumps(answer))
    ret = google(server)({"query": "paris", "k": 1})
    assert ret.result == [
        {
            "type": "text",
            "content": "Results:\n1. Paris - Wikipedia\n   https://en.wikipedia.org/wiki/Paris\n"
            "   Paris is the capital and largest city of France.",
        }
    ]


def test_google_search_news_reads_the_news_list_from_its_endpoint(server: LocalServer) -> None:
    news = {"news": [{"title": "Paris news", "link": "https://example.org/n", "snippet": "Today."}]}
    server.replies["/news"] = Reply(200, json.dumps(news))
    ret = google(server, search_type="news")({"query": "paris"})
    assert ret.result == [
        {"type": "text", "content": "Results:\n1. Paris news\n   https://example.org/n\n   Today."}
    ]


def test_google_search_without_results_says_nothing_was_found(server: LocalServer) -> None:
    server.replies["/search"] = Reply(200, "{}")
    ret = google(server)({"query": "zzzz"})
    assert ret.result == [{"type": "text", "content": "No good Google Search Result was found"}]


def test_google_search_without_a_key_is_a_tool_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SERPER_API_KEY", raising=False)
    tool = GoogleSearch(base_url="http://127.0.0.1:9")
    with pytest.raises(ToolError) as info:
        tool.run("paris")
    assert info.value.message == "no Serper API key: pass api_key or set SERPER_API_KEY"
    ret = tool({"query": "paris"})
    assert ret.state == ActionStatusCode.API_ERROR
    assert ret.errmsg == NO_KEY_MESSAGE


def test_google_search_reads_the_key_from_the_environment_at_call_time(
    server: LocalServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SERPER_API_KEY", raising=False)
    tool = GoogleSearch(base_url=server.base)
    server.replies["/search"] = Reply(200, "{}")
    monkeypatch.setenv("SERPER_API_KEY", "sk-from-env")
    ret = tool({"query": "paris"})
    assert ret.state == ActionStatusCode.SUCCESS
    assert server.requests[0]["headers"]["X-API-KEY"] == "sk-from-env"


# --- the key never leaks --------------------------------------------------------------


def test_redact_replaces_every_secret_and_ignores_empty_ones() -> None:
    assert redact(f"key={KEY}, again {KEY}", [KEY, "", None]) == f"key={REDACTED}, again {REDACTED}"


def test_the_key_appears_in_no_errmsg_repr_or_log_line(
    server: LocalServer, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    caplog.set_level(logging.DEBUG, logger="lagent_like")
    caplog.set_level(logging.DEBUG, logger="urllib3")
    monkeypatch.setenv("SERPER_API_KEY", KEY)
    # A server that echoes the key back in its error bodies.
    server.replies["/search"] = Reply(401, json.dumps({"message": f"invalid key {KEY}"}))
    server.replies["/news"] = Reply(500, f"boom {KEY}")
    server.replies["/slow"] = Reply(200, "{}", delay=30)
    tools = [
        google(server),
        GoogleSearch(base_url=server.base),
        google(server, search_type="news"),
        google(server, search_type="slow", timeout=0.2),
        google(server, search_type="missing"),
        GoogleSearch(api_key=KEY, base_url="http://127.0.0.1:1"),
    ]
    records = [tool({"query": "paris"}) for tool in tools]
    executor = ActionExecutor(tools[:1], retry=RetryPolicy(max_attempts=2, base_delay=0, jitter=0))
    records.append(executor("GoogleSearch", {"query": "paris"}))

    assert [r.state for r in records] == [
        ActionStatusCode.HTTP_ERROR,
        ActionStatusCode.HTTP_ERROR,
        ActionStatusCode.API_ERROR,
        ActionStatusCode.API_ERROR,
        ActionStatusCode.HTTP_ERROR,
        ActionStatusCode.API_ERROR,
        ActionStatusCode.HTTP_ERROR,
    ]
    assert records[0].errmsg == (
        f'GoogleSearch: {server.base}/search answered HTTP 401 Unauthorized: {{"message": "invalid key ***"}}'
    )
    assert (
        records[2].errmsg
        == f"GoogleSearch: {server.base}/news failed with HTTP 500 Internal Server Error; try again later"
    )
    texts = [str(r.errmsg) for r in records] + [repr(t) for t in tools] + [str(r.to_dict()) for r in records]
    assert caplog.records, "urllib3 logs requests at DEBUG"
    texts += [record.getMessage() for record in caplog.records] + [caplog.text]
    assert [t for t in texts if KEY in t] == []
