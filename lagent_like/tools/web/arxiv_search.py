"""``ArxivSearch``: Lagent's arXiv toolkit, on arXiv's public Atom API.

Lagent's tool depends on the ``arxiv`` package; this one asks the API directly with
``requests`` (through the shared session of :mod:`lagent_like._net.http`) and reads
the Atom feed with the standard library, so the only extra dependency is ``requests``
and the base URL can point at a local server in tests. The description a model sees is
Lagent's, word for word.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Optional

from ...exceptions import ToolError
from ...parsers import BaseParser, JsonParser
from ...toolkits._base_action import tool_api
from ...toolkits._tool_state import Enable
from .._api_types import DictOrRecord
from .._async_twin import async_twin
from ._web_api import WebApiTool

if TYPE_CHECKING:
    import xml.etree.ElementTree as ET

    from typing_extensions import Unpack

    from .._settings import WebApiSettings

__all__ = ["ArxivSearch", "AsyncArxivSearch"]

#: XML namespaces of an arXiv Atom feed.
_NS = {"atom": "http://www.w3.org/2005/Atom", "arxiv": "http://arxiv.org/schemas/atom"}

#: The answer when the feed has no entries (Lagent's wording).
NO_RESULT = "No good Arxiv Result was found"


def _text(entry: ET.Element, path: str) -> str:
    """The whitespace-normalised text of the first ``path`` under ``entry`` ('' if absent).

    arXiv wraps long titles and summaries over indented lines; a model reads one line.
    """
    node = entry.find(path, _NS)
    return " ".join((node.text or "").split()) if node is not None else ""


class ArxivSearch(WebApiTool):
    """Search information from Arxiv.org. \
Useful for when you need to answer questions about Physics, Mathematics, \
Computer Science, Quantitative Biology, Quantitative Finance, Statistics, \
Electrical Engineering, and Economics from scientific articles on arxiv.org.

    Args:
        top_k_results: how many papers one search returns.
        max_query_len: longer queries are cut to this many characters.
        doc_content_chars_max: the answer text is cut to this many characters.
        description: see :class:`BaseAction`.
        parser: see :class:`BaseAction`.
        enable: see :class:`BaseAction`.
        base_url: keyword-only: the arXiv API's query endpoint (a local server in tests).
        timeout: keyword-only: seconds allowed for connecting and for each read of the
            HTTP request. This is not the executor's timeout (the tool's ``timeout``
            setting), which stays the executor's to choose.
    """  # noqa: D205 - Lagent's description, byte for byte

    url_is_endpoint = True

    web_defaults: ClassVar[WebApiSettings] = {
        "base_url": "https://export.arxiv.org/api/query",
        "timeout": 10.0,
    }

    def __init__(
        self,
        top_k_results: int = 3,
        max_query_len: int = 300,
        doc_content_chars_max: int = 1500,
        description: Optional[dict[str, Any]] = None,
        parser: type[BaseParser] = JsonParser,
        enable: Enable = True,
        **web: Unpack[WebApiSettings],
    ) -> None:
        super().__init__(description, parser, enable, **web)
        self.top_k_results = top_k_results
        self.max_query_len = max_query_len
        self.doc_content_chars_max = doc_content_chars_max

    def _repr_fields(self) -> list[str]:
        return [f"top_k_results={self.top_k_results}", *super()._repr_fields()]

    @tool_api(explode_return=True)
    def get_arxiv_article_information(self, query: str) -> DictOrRecord:
        """Run Arxiv search and get the article meta information.

        Args:
            query (:class:`str`): the content of search query

        Returns:
            :class:`dict`: article information
                * content (str): a list of 3 arxiv search papers
        """
        return self._answer(self._search, query)

    def _search(self, query: str) -> dict[str, Any]:
        params = {"search_query": query[: self.max_query_len], "start": 0, "max_results": self.top_k_results}
        papers = self._papers(self._request("GET", self.base_url, params=params).content)
        if not papers:
            return {"content": NO_RESULT}
        return {"content": "\n\n".join(papers)[: self.doc_content_chars_max]}

    def _papers(self, body: bytes) -> list[str]:
        """One ``Published/Title/Authors/Summary`` block per entry of the Atom feed.

        Raises:
            ToolError: the body is not XML, not an Atom feed, or arXiv's error entry.
        """
        # Imported here: the XML parser is only needed when a feed arrives.
        import xml.etree.ElementTree as ET

        try:
            root = ET.fromstring(body)
        except ET.ParseError as exc:
            raise ToolError(f"{self.name}: the arXiv API answered with malformed XML ({exc})") from None
        if root.tag != f"{{{_NS['atom']}}}feed":
            raise ToolError(f"{self.name}: the arXiv API answered with {root.tag!r}, not an Atom feed")
        papers = []
        for entry in root.findall("atom:entry", _NS)[: self.top_k_results]:
            # arXiv reports a bad query as a single entry whose id is an error page.
            if "/api/errors" in _text(entry, "atom:id"):
                raise ToolError(
                    f"{self.name}: the arXiv API rejected the query: {_text(entry, 'atom:summary')}"
                )
            authors = ", ".join(
                " ".join((name.text or "").split()) for name in entry.findall("atom:author/atom:name", _NS)
            )
            papers.append(
                f"Published: {_text(entry, 'atom:published')[:10]}\n"
                f"Title: {_text(entry, 'atom:title')}\n"
                f"Authors: {authors}\n"
                f"Summary: {_text(entry, 'atom:summary')}"
            )
        return papers


AsyncArxivSearch = async_twin(ArxivSearch, __name__)
