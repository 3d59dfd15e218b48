"""``GoogleSearch``: Lagent's web-search tool, on the Serper API (google.serper.dev).

The request goes through the shared session of :mod:`lagent_like._net.http`, with
the key in the ``X-API-KEY`` header and nowhere else: it is read at call time (from the
constructor or ``SERPER_API_KEY``), kept in a private attribute, hidden from ``repr``
and redacted from every message, because agent transcripts and logs are shared far more
widely than keys should be. Serper's JSON is rendered as plain text a model can quote.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, ClassVar, Optional, Union

from ...parsers import BaseParser, JsonParser
from ...schema import ActionReturn, ActionStatusCode
from ...toolkits._tool_state import Enable
from .._async_twin import async_twin
from ._web_api import WebApiTool

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .._settings import WebApiSettings, WebApiUrl

__all__ = ["AsyncGoogleSearch", "GoogleSearch"]

#: The environment variable read when no key is passed to the constructor.
API_KEY_ENV = "SERPER_API_KEY"

#: The message of a call made without any key.
NO_KEY_MESSAGE = f"no Serper API key: pass api_key or set {API_KEY_ENV}"

#: The answer when Serper finds nothing (Lagent's wording).
NO_RESULT = "No good Google Search Result was found"

#: The key of the result list in Serper's answer, per search type.
_RESULT_KEYS = {"search": "organic", "news": "news", "images": "images", "places": "places"}


def _clean(value: Any) -> str:
    return " ".join(str(value).split())


def _answer_box(box: Any) -> list[str]:
    if not isinstance(box, dict):
        return []
    text = box.get("answer") or box.get("snippet") or box.get("snippetHighlighted")
    if isinstance(text, list):
        text = " ".join(str(t) for t in text)
    if not text:
        return []
    title = f" ({_clean(box['title'])})" if box.get("title") else ""
    return [f"Answer box{title}: {_clean(text)}"]


def _knowledge_graph(graph: Any) -> list[str]:
    if not isinstance(graph, dict) or not graph.get("title"):
        return []
    kind = f" ({_clean(graph['type'])})" if graph.get("type") else ""
    description = f": {_clean(graph['description'])}" if graph.get("description") else ""
    lines = [f"Knowledge graph: {_clean(graph['title'])}{kind}{description}"]
    attributes = graph.get("attributes")
    if isinstance(attributes, dict):
        lines.extend(f"  {_clean(name)}: {_clean(value)}" for name, value in attributes.items())
    return lines


def _results(items: Any, k: int) -> list[str]:
    if not isinstance(items, list):
        return []
    lines = []
    for number, item in enumerate([i for i in items if isinstance(i, dict)][:k], 1):
        lines.append(f"{number}. {_clean(item.get('title', ''))}")
        link = item.get("link") or item.get("imageUrl")
        snippet = item.get("snippet") or item.get("address")
        if link:
            lines.append(f"   {_clean(link)}")
        if snippet:
            lines.append(f"   {_clean(snippet)}")
    return lines


class GoogleSearch(WebApiTool):
    """Google search through the Serper API.

    The description a model sees is Lagent's, in Chinese as Lagent has it (in English:
    "An API that searches Google. Use it when you need a short, clear answer to a
    specific question. The input should be a search query.").

    Args:
        api_key: the Serper key; ``None`` reads ``SERPER_API_KEY`` at each call.
        timeout: seconds allowed for connecting and for each read of the HTTP request
            (not the executor's timeout, which stays the executor's to choose).
        search_type: Serper's search type: ``'search'``, ``'news'``, ``'images'`` or
            ``'places'``; the request goes to ``{base_url}/{search_type}``.
        description: see :class:`BaseAction`.
        parser: see :class:`BaseAction`.
        enable: see :class:`BaseAction`.
        base_url: keyword-only: Serper's endpoint root (a local server in tests).
    """

    key_envs = (API_KEY_ENV,)
    no_key_message = NO_KEY_MESSAGE

    web_defaults: ClassVar[WebApiSettings] = {"base_url": "https://google.serper.dev", "timeout": 10.0}

    def __init__(
        self,
        api_key: Optional[str] = None,
        timeout: float = 10.0,
        search_type: str = "search",
        description: Optional[dict[str, Any]] = None,
        parser: type[BaseParser] = JsonParser,
        enable: Enable = True,
        **web: Unpack[WebApiUrl],
    ) -> None:
        super().__init__(description, parser, enable, key=api_key, timeout=timeout, **web)
        self.search_type = search_type

    def _repr_fields(self) -> list[str]:
        base_url, *rest = super()._repr_fields()
        return [base_url, f"search_type={self.search_type!r}", *rest]

    def run(self, query: str, k: int = 10) -> Union[str, ActionReturn]:
        """一个可以从谷歌搜索结果的API。当你需要对于一个特定问题找到简短明了的回答时，可以使用它。输入应该是一个搜索查询。

        Args:
            query: the search content
            k: select first k results in the search results as response
        """  # noqa: RUF002, D415 - Lagent's description, byte for byte
        return self._answer(self._searched, query, k)

    def _searched(self, query: str, k: int) -> Union[str, ActionReturn]:
        found = self._search(query, k=k)
        if inspect.iscoroutine(found):
            # Lagent 0.5's AsyncGoogleSearch is overridden with ``async def _search``;
            # the twin runs this method in a worker thread, which has no loop.
            import asyncio  # here: importing the package must not import asyncio

            found = asyncio.run(found)
        status, response = found
        if status == 200 and isinstance(response, dict):
            return self._format(response, k)
        # Lagent's protocol for an overridden ``_search``: -1 and a message for a
        # failed request, any other status for a refused one.
        if status == -1:
            return ActionReturn(errmsg=self._redact(str(response)), state=ActionStatusCode.HTTP_ERROR)
        return ActionReturn(errmsg=str(status), state=ActionStatusCode.API_ERROR)

    def _search(
        self, search_term: str, search_type: Optional[str] = None, **kwargs: Any
    ) -> tuple[int, Union[dict[str, Any], str]]:
        """Ask Serper; Lagent's hook (its own tests override it to answer without a network).

        Args:
            search_term: the query.
            search_type: Serper's search type (default: the tool's).
            **kwargs: further request fields; ``k`` is sent as Serper's ``num``, and
                ``None`` values are left out.

        Returns:
            ``(200, the JSON object)``. An override may also return ``(-1, message)``
            for a failed request or ``(status, anything)`` for a refused one.

        Raises:
            ToolError: no key, the answer is not a JSON object, or the request failed
                (:class:`TransientToolError` when it may pass, :class:`HttpStatusError`
                for a client error).
        """
        key = self._key()
        fields = {
            "num" if name == "k" else name: value for name, value in kwargs.items() if value is not None
        }
        url = f"{self.base_url}/{search_type or self.search_type}"
        reply = self._request("POST", url, key, json={"q": search_term, **fields}, headers={"X-API-KEY": key})
        # Any 2xx is Serper's success.
        return 200, self._json_object(reply, "the Serper API")

    def _format(self, data: dict[str, Any], k: int) -> str:
        """Answer box, knowledge graph and the first ``k`` results, as readable text."""
        lines = _answer_box(data.get("answerBox")) + _knowledge_graph(data.get("knowledgeGraph"))
        results = _results(data.get(_RESULT_KEYS.get(self.search_type, "organic")), k)
        if results:
            lines.append("Results:")
            lines.extend(results)
        return "\n".join(lines) if lines else NO_RESULT


AsyncGoogleSearch = async_twin(GoogleSearch, __name__)
