"""``WebBrowser``: Lagent 0.5's browsing toolkit: search, select results, open a page.

A model searches (one query or several), reads the numbered results, then selects some
to read their pages, or opens a URL directly. Searching goes through a pluggable
backend: anything with ``search(query) -> [(url, snippet, title), ...]``; shipped are
:class:`SerperSearch` (Google through Serper, the ``GoogleSearch`` tool's service) and
:class:`SearxngSearch` (a SearXNG instance). Pages are fetched through the shared HTTP
session (timeout, size cap) and turned into readable text with the standard library's
``html.parser``. A URL comes from a model, so by default pages on loopback, private,
link-local and other non-public addresses are refused (an agent must not become a way
into the operator's network); ``allow_private_hosts`` lifts that for some networks or
for all (intranets, tests). The rule is checked on the address each connection is
made to, redirects included (see :mod:`lagent_like._net.egress`), so neither a URL
that parsers read differently nor a DNS answer that changes after a check can get
round it; a URL whose host part holds a backslash, a space, a ``%`` or a control
character is refused before anything is sent.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from html.parser import HTMLParser
from typing import Any, Optional, Protocol, Union
from urllib.parse import urlsplit

from ..._net.http import http_request
from ...exceptions import ToolError
from ...parsers import BaseParser, JsonParser
from ...toolkits._base_action import BaseAction, tool_api
from ...toolkits._tool_state import Enable
from .._api_types import Dict
from .._async_twin import async_twin
from .google_search import GoogleSearch

__all__ = ["AsyncWebBrowser", "SearchBackend", "SearxngSearch", "SerperSearch", "WebBrowser", "page_text"]

#: Domains left out of search results by default (Lagent's list).
DEFAULT_BLACK_LIST = ("enoN", "youtube.com", "bilibili.com", "researchgate.net")

#: Characters of a page kept by ``select`` (Lagent's number).
SELECT_CHARS = 8192

#: At most this many results may be selected at once (Lagent's description says so).
MAX_SELECT = 4

_BLOCK_TAGS = frozenset(
    [
        "address",
        "article",
        "aside",
        "blockquote",
        "br",
        "dd",
        "div",
        "dl",
        "dt",
        "figcaption",
        "footer",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hr",
        "li",
        "main",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "table",
        "td",
        "th",
        "tr",
        "ul",
        "title",
    ]
)
_SKIPPED_TAGS = frozenset({"script", "style", "noscript", "template", "svg", "head"})


class SearchBackend(Protocol):
    """What :class:`WebBrowser` searches with."""

    def search(self, query: str) -> Sequence[tuple[str, str, str]]:
        """``(url, snippet, title)`` of each result, best first."""
        ...


class SerperSearch:
    """Google results through Serper: the ``GoogleSearch`` tool's request, its organic list.

    Args:
        api_key: the Serper key; ``None`` reads ``SERPER_API_KEY`` at each search.
        base_url: Serper's root (a local server in tests).
        timeout: seconds per HTTP read.
    """

    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: str = "https://google.serper.dev",
        timeout: float = 10.0,
    ) -> None:
        # One way to ask Serper: the tool's own (key handling, redaction, errors).
        self._google = GoogleSearch(api_key=api_key, base_url=base_url, timeout=timeout)

    def __repr__(self) -> str:
        return f"SerperSearch(base_url={self._google.base_url!r})"

    def search(self, query: str) -> list[tuple[str, str, str]]:
        """See :class:`SearchBackend`."""
        _, data = self._google._search(query)
        items = data.get("organic") if isinstance(data, dict) else None
        return [
            (str(i["link"]), str(i.get("snippet", "")), str(i.get("title", "")))
            for i in items or []
            if isinstance(i, dict) and i.get("link")
        ]


class SearxngSearch:
    """Results of a SearXNG instance (``GET {url}/search?format=json``).

    Args:
        url: the instance's root.
        timeout: seconds per HTTP read.
        language: SearXNG's ``language``.
        categories: SearXNG's ``categories``.
    """

    def __init__(
        self,
        url: str = "http://127.0.0.1:18883",
        timeout: float = 10.0,
        language: str = "en",
        categories: str = "general",
    ) -> None:
        self.url = url.rstrip("/")
        self.timeout = timeout
        self.language = language
        self.categories = categories

    def search(self, query: str) -> list[tuple[str, str, str]]:
        """See :class:`SearchBackend`."""
        params = {"q": query, "format": "json", "language": self.language, "categories": self.categories}
        reply = http_request("WebBrowser", "GET", f"{self.url}/search", timeout=self.timeout, params=params)
        try:
            items = reply.json().get("results") or []
        except (ValueError, AttributeError):
            raise ToolError("WebBrowser: SearXNG answered with something else than a JSON object") from None
        return [
            (str(i["url"]), str(i.get("content", "")), str(i.get("title", "")))
            for i in items
            if isinstance(i, dict) and i.get("url")
        ]


#: Backends by the names Lagent's ``searcher_type`` uses.
_BACKENDS: dict[str, Any] = {"GoogleSearch": SerperSearch, "SearxngSearch": SearxngSearch}


class _TextExtractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, Optional[str]]]) -> None:
        if tag in _SKIPPED_TAGS:
            self._skipping += 1
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED_TAGS:
            self._skipping = max(0, self._skipping - 1)
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._skipping:
            # Line breaks in the source mean nothing in HTML; blocks make the lines.
            self.parts.append(" ".join(data.split(" ")).replace("\n", " ").replace("\t", " "))


def page_text(html: str) -> str:
    """The readable text of an HTML page: no scripts or styles, one line per block."""
    extractor = _TextExtractor()
    extractor.feed(html)
    extractor.close()
    lines = (" ".join(line.split()) for line in "".join(extractor.parts).splitlines())
    return "\n".join(line for line in lines if line)


#: Characters no URL a model writes needs: C0 controls (tab, line breaks), DEL, C1 controls.
#: ``urlsplit`` drops tabs and line breaks without a word, so a check after it misses them.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _text_refusal(url: str) -> Optional[str]:
    """Why the text of ``url`` is refused before any lookup, or ``None``.

    Parsers disagree about these characters (a backslash ends the host for a browser
    and ``requests``, not for ``urlsplit``; a browser decodes ``%`` in a host), so a
    host part holding one is refused rather than read one way.
    """
    if _CONTROL.search(url):
        return f"{url!r} contains a control character; not opened"
    try:
        parts = urlsplit(url)
        hostname = parts.hostname
    except ValueError as exc:  # e.g. an unclosed '[' of an IPv6 address
        return f"{url!r} is not a valid URL ({exc}); not opened"
    if parts.scheme not in ("http", "https") or not hostname:
        return f"only http:// and https:// URLs can be opened, got {url!r}"
    authority = re.split("[/?#]", url.partition("//")[2], maxsplit=1)[0]
    host_part = authority.rpartition("@")[2]
    odd = [c for c in authority if c == "\\" or c.isspace()] + [c for c in host_part if c == "%"]
    if odd:
        return f"the host part of {url!r} contains {odd[0]!r}; not opened"
    return None


def _private_networks(value: Union[bool, str, Iterable[str]]) -> Union[bool, tuple[str, ...]]:
    """``allow_private_hosts`` as stored: a bool, or the networks it names, checked."""
    if isinstance(value, bool):
        return value
    names = (value,) if isinstance(value, str) else tuple(value)
    for name in names:
        try:
            # Only text: ip_network would also take an int (8 is 0.0.0.8).
            ipaddress.ip_network(name if isinstance(name, str) else "")
        except ValueError:
            raise ValueError(
                f"WebBrowser: allow_private_hosts holds {name!r}, which is not an IP address or "
                "network such as '10.0.0.0/8' (True allows every address)"
            ) from None
    return names


class WebBrowser(BaseAction):
    """Wrapper around the Web Browser Tool.

    Args:
        searcher_type: a backend name (``'GoogleSearch'``, Serper; ``'SearxngSearch'``)
            or a backend object with ``search(query)``.
        timeout: seconds allowed per HTTP read when fetching pages.
        black_list: domains whose results are left out.
        topk: the most results one query keeps.
        description: see :class:`BaseAction`.
        parser: see :class:`BaseAction`.
        enable: see :class:`BaseAction`.
        allow_private_hosts: keyword-only: ``True`` allows pages on every address
            (loopback, private, link-local...); addresses or networks (``'10.0.0.0/8'``,
            ``['127.0.0.1', 'fd00::/8']``) allow those only; ``False`` allows public
            addresses only.
        **kwargs: passed to the named backend's constructor (``api_key``, ``base_url``...).
    """

    def __init__(
        self,
        searcher_type: Union[str, SearchBackend] = "GoogleSearch",
        timeout: float = 5.0,
        black_list: Optional[Sequence[str]] = DEFAULT_BLACK_LIST,
        topk: int = 20,
        description: Optional[dict[str, Any]] = None,
        parser: type[BaseParser] = JsonParser,
        enable: Enable = True,
        *,
        allow_private_hosts: Union[bool, str, Iterable[str]] = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(description, parser, enable)
        if isinstance(searcher_type, str):
            if searcher_type not in _BACKENDS:
                raise ValueError(
                    f"WebBrowser: unknown searcher_type {searcher_type!r}; use one of {sorted(_BACKENDS)}"
                )
            self.searcher: SearchBackend = _BACKENDS[searcher_type](**kwargs)
        else:
            self.searcher = searcher_type
        self.timeout = timeout
        self.black_list = tuple(black_list or ())
        self.topk = topk
        self.allow_private_hosts = _private_networks(allow_private_hosts)
        self.search_results: dict[int, dict[str, str]] = {}

    def _fetch(self, url: str) -> str:
        """The readable text of the page at ``url``."""
        refusal = _text_refusal(url)
        if refusal:
            raise ToolError(f"{self.name}: {refusal}")
        if self.allow_private_hosts is True:
            reply = http_request(self.name, "GET", url, timeout=self.timeout)
        else:
            from ..._net.egress import AddressRefused, AddressRule, guarded_session

            allowed = tuple(ipaddress.ip_network(name) for name in self.allow_private_hosts or ())
            try:
                session = guarded_session(AddressRule(allowed))
                reply = http_request(self.name, "GET", url, timeout=self.timeout, session=session)
            except AddressRefused as refused:
                raise ToolError(f"{self.name}: {refused}") from None
        kind = reply.headers.get("Content-Type", "text/html").split(";")[0].strip().lower()
        if kind in ("text/html", "application/xhtml+xml"):
            return page_text(reply.text)
        if kind.startswith("text/") or kind in ("application/json", "application/xml"):
            return reply.text
        raise ToolError(f"{self.name}: {url} is {kind}, not a text page")

    def _blocked(self, url: str) -> bool:
        return any(domain in url for domain in self.black_list)

    @tool_api
    def search(self, query: Union[str, list[str]]) -> Dict:
        """BING search API
        Args:
            query (List[str]): list of search query strings
        """  # noqa: D205, D415 - Lagent's description, byte for byte
        queries = query if isinstance(query, list) else [query]
        merged: dict[str, dict[str, str]] = {}
        failures = []
        with ThreadPoolExecutor(max_workers=min(4, len(queries)) or 1) as pool:
            outcomes = list(pool.map(self._search_one, queries))
        for text, outcome in zip(queries, outcomes):
            if isinstance(outcome, str):
                failures.append(f"{text!r}: {outcome}")
                continue
            for url, snippet, title in outcome:
                if url in merged:
                    merged[url]["summ"] += f"\n{snippet}"
                else:
                    merged[url] = {"url": url, "summ": snippet, "title": title}
        if failures and not merged:
            raise ToolError(f"{self.name}: every search failed: " + "; ".join(failures))
        self.search_results = dict(enumerate(merged.values()))
        return self.search_results

    def _search_one(self, query: str) -> Union[list[tuple[str, str, str]], str]:
        try:
            hits = self.searcher.search(query)
        except ToolError as exc:
            return exc.message
        kept = [hit for hit in hits if not self._blocked(hit[0])]
        return kept[: self.topk]

    @tool_api
    def select(self, select_ids: list[int]) -> Dict:
        """get the detailed content on the selected pages.

        Args:
            select_ids (List[int]): list of index to select. Max number of index to be selected is no more than 4.
        """  # noqa: E501, D403 - Lagent's description, byte for byte
        if not self.search_results:
            raise ToolError(f"{self.name}: no search results to select from; call search first")
        wanted = [i for i in dict.fromkeys(select_ids) if i in self.search_results][:MAX_SELECT]
        if not wanted:
            raise ToolError(
                f"{self.name}: none of {select_ids} is a result number; "
                f"use 0 to {len(self.search_results) - 1}"
            )
        with ThreadPoolExecutor(max_workers=len(wanted)) as pool:
            pages = list(pool.map(self._fetch_or_error, [self.search_results[i]["url"] for i in wanted]))
        selected = {}
        for number, page in zip(wanted, pages):
            if page is None:
                continue
            result = self.search_results[number]
            result["content"] = page[:SELECT_CHARS]
            selected[number] = {k: v for k, v in result.items() if k != "summ"}
        return selected

    def _fetch_or_error(self, url: str) -> Optional[str]:
        try:
            return self._fetch(url)
        except ToolError:
            return None

    @tool_api
    def open_url(self, url: str) -> Dict:  # noqa: D102 - Lagent's API has no description
        try:
            return {"type": "text", "content": self._fetch(url)}
        except ToolError as exc:
            return {"error": exc.message}


AsyncWebBrowser = async_twin(WebBrowser, __name__)
