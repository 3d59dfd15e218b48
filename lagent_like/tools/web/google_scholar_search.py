"""``GoogleScholar``: Lagent's scholar toolkit, on SerpApi's Google Scholar engines.

Lagent calls SerpApi through the ``google-search-results`` package; this toolkit asks
SerpApi's REST endpoint (``{base_url}/search.json?engine=...``) directly, through the
shared session of :mod:`lagent_like._net.http`, so the only dependency is
``requests`` and tests point ``base_url`` at a local server. SerpApi wants the key in
the query string: every message is redacted in every form the key may take there. The
key is read at call time (constructor, else ``SERPAPI_API_KEY``, else Lagent's
``SERPER_API_KEY``). The descriptions, API names and result keys are Lagent's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Optional

from ...exceptions import ToolError
from ...parsers import BaseParser, JsonParser
from ...toolkits._base_action import tool_api
from ...toolkits._tool_state import Enable
from .._api_types import DictOrRecord, TextOrRecord
from .._async_twin import async_twin
from ._web_api import WebApiTool

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .._settings import WebApiSettings

__all__ = ["AsyncGoogleScholar", "GoogleScholar"]

#: The environment variables read, in order, when no key is passed to the constructor.
API_KEY_ENVS = ("SERPAPI_API_KEY", "SERPER_API_KEY")

#: The message of a call made without any key.
NO_KEY_MESSAGE = "no SerpApi key: pass api_key or set SERPAPI_API_KEY (or SERPER_API_KEY)"

#: How many papers or articles an answer keeps (Lagent's number).
TOP = 3


def _field(item: Any, *path: str) -> Any:
    for name in path:
        item = item.get(name) if isinstance(item, dict) else None
    return item


def _params(arguments: Mapping[str, Any], **renamed: str) -> dict[str, Any]:
    """SerpApi's parameters from an API's arguments (``locals()`` before anything else).

    Lagent's APIs name their parameters as SerpApi does, in its order, except the few
    in ``renamed`` (``async`` is a Python keyword, ``query`` is SerpApi's ``q``).
    """
    return {renamed.get(name, name): value for name, value in arguments.items() if name != "self"}


class GoogleScholar(WebApiTool):
    """Plugin for google scholar search.

    Args:
        api_key: the SerpApi key; ``None`` reads ``SERPAPI_API_KEY`` (or
            ``SERPER_API_KEY``, Lagent's name) at each call.
        description: see :class:`BaseAction`.
        parser: see :class:`BaseAction`.
        enable: see :class:`BaseAction`.
        base_url: keyword-only: SerpApi's root (a local server in tests).
        timeout: keyword-only: seconds allowed for connecting and for each read of an
            HTTP request.
    """

    key_envs = API_KEY_ENVS
    no_key_message = NO_KEY_MESSAGE

    web_defaults: ClassVar[WebApiSettings] = {"base_url": "https://serpapi.com", "timeout": 20.0}

    def __init__(
        self,
        api_key: Optional[str] = None,
        description: Optional[dict[str, Any]] = None,
        parser: type[BaseParser] = JsonParser,
        enable: Enable = True,
        **web: Unpack[WebApiSettings],
    ) -> None:
        super().__init__(description, parser, enable, key=api_key, **web)

    def _ask(self, engine: str, params: dict[str, Any]) -> dict[str, Any]:
        """SerpApi's JSON answer for ``engine``.

        ``None`` parameters are left out and booleans sent as ``true``/``false``.

        Raises:
            ToolError: no key, a failed request (:class:`HttpStatusError` for a 4xx),
                or SerpApi's own ``error`` field.
        """
        key = self._key()
        query = {
            name: (str(value).lower() if isinstance(value, bool) else value)
            for name, value in params.items()
            if value is not None
        }
        reply = self._request(
            "GET", f"{self.base_url}/search.json", key, params={"engine": engine, **query, "api_key": key}
        )
        data = self._json_object(reply, "SerpApi")
        if isinstance(data.get("error"), str):
            raise ToolError(f"{self.name}: SerpApi: {data['error']}")
        return data

    @tool_api(explode_return=True)
    def search_google_scholar(
        self,
        query: str,
        cites: Optional[str] = None,
        as_ylo: Optional[int] = None,
        as_yhi: Optional[int] = None,
        scisbd: Optional[int] = None,
        cluster: Optional[str] = None,
        hl: Optional[str] = None,
        lr: Optional[str] = None,
        start: Optional[int] = None,
        num: Optional[int] = None,
        as_sdt: Optional[str] = None,
        safe: Optional[str] = None,
        filter: Optional[str] = None,
        as_vis: Optional[str] = None,
    ) -> DictOrRecord:
        """Search for scholarly articles based on a query according to the google scholar.

        Args:
            query (str): The query to search for.
            cites (Optional[str]): The unique ID of an article for triggering "Cited By" searches.
            as_ylo (Optional[int]): The starting year for results (e.g., if as_ylo=2018, results before this year will be omitted).
            as_yhi (Optional[int]): The ending year for results (e.g., if as_yhi=2018, results after this year will be omitted).
            scisbd (Optional[int]): Defines articles added in the last year, sorted by date. It can be set to 1 to include only abstracts, or 2 to include everything.
            cluster (Optional[str]): The unique ID of an article for triggering "All Versions" searches.
            hl (Optional[str]): The language to use for the Google Scholar search.
            lr (Optional[str]): One or multiple languages to limit the search to.
            start (Optional[int]): The result offset for pagination (0 is the first page of results, 10 is the 2nd page, etc.)
            num (Optional[int]): The maximum number of results to return, limited to 20.
            as_sdt (Optional[str]): Can be used either as a search type or a filter.
            safe (Optional[str]): The level of filtering for adult content.
            filter (Optional[str]): Defines if the filters for 'Similar Results' and 'Omitted Results' are on or off.
            as_vis (Optional[str]): Defines whether to include citations or not.

        Returns:
            :class:`dict`: article information
                - title: a list of the titles of the three selected papers
                - cited_by: a list of the citation numbers of the three selected papers
                - organic_id: a list of the organic results' ids of the three selected papers
                - pub_info: publication information of selected papers
        """  # noqa: E501
        return self._answer(self._articles, _params(locals(), query="q"))

    @tool_api(explode_return=True)
    def get_author_information(
        self,
        author_id: str,
        hl: Optional[str] = None,
        view_op: Optional[str] = None,
        sort: Optional[str] = None,
        citation_id: Optional[str] = None,
        start: Optional[int] = None,
        num: Optional[int] = None,
        no_cache: Optional[bool] = None,
        async_req: Optional[bool] = None,
        output: Optional[str] = None,
    ) -> DictOrRecord:
        """Search for an author's information by author's id provided by get_author_id.

        Args:
            author_id (str): Required. The ID of an author.
            hl (Optional[str]): The language to use for the Google Scholar Author search. Default is 'en'.
            view_op (Optional[str]): Used for viewing specific parts of a page.
            sort (Optional[str]): Used for sorting and refining articles.
            citation_id (Optional[str]): Used for retrieving individual article citation.
            start (Optional[int]): Defines the result offset. Default is 0.
            num (Optional[int]): Defines the number of results to return. Default is 20.
            no_cache (Optional[bool]): Forces SerpApi to fetch the results even if a cached version is already present. Default is False.
            async_req (Optional[bool]): Defines the way you want to submit your search to SerpApi. Default is False.
            output (Optional[str]): Defines the final output you want. Default is 'json'.

        Returns:
            :class:`dict`: author information
                * name: author's name
                * affliation: the affliation of the author
                * articles: at most 3 articles by the author
                * website: the author's homepage url
        """  # noqa: E501
        return self._answer(self._author, _params(locals(), async_req="async"))

    @tool_api(explode_return=True)
    def get_citation_format(
        self,
        q: str,
        no_cache: Optional[bool] = None,
        async_: Optional[bool] = None,
        output: Optional[str] = "json",
    ) -> TextOrRecord:
        """Function to get MLA citation format by an identification of organic_result's id provided by search_google_scholar.

        Args:
            q (str): ID of an individual Google Scholar organic search result.
            no_cache (Optional[bool]): If set to True, will force SerpApi to fetch the Google Scholar Cite results even if a cached version is already present. Defaults to None.
            async_ (Optional[bool]): If set to True, will submit search to SerpApi and retrieve results later. Defaults to None.
            output (Optional[str]): Final output format. Set to 'json' to get a structured JSON of the results, or 'html' to get the raw html retrieved. Defaults to 'json'.

        Returns:
            :class:`dict`: citation format
                * authors: the authors of the article
                * citation: the citation format of the article
        """  # noqa: E501
        return self._answer(self._citation, _params(locals(), async_="async"))

    @tool_api(explode_return=True)
    def get_author_id(
        self,
        mauthors: str,
        hl: Optional[str] = "en",
        after_author: Optional[str] = None,
        before_author: Optional[str] = None,
        no_cache: Optional[bool] = False,
        _async: Optional[bool] = False,
        output: Optional[str] = "json",
    ) -> DictOrRecord:
        """The getAuthorId function is used to get the author's id by his or her name.

        Args:
            mauthors (str): Defines the author you want to search for.
            hl (Optional[str]): Defines the language to use for the Google Scholar Profiles search. It's a two-letter language code. (e.g., 'en' for English, 'es' for Spanish, or 'fr' for French). Defaults to 'en'.
            after_author (Optional[str]): Defines the next page token. It is used for retrieving the next page results. The parameter has the precedence over before_author parameter. Defaults to None.
            before_author (Optional[str]): Defines the previous page token. It is used for retrieving the previous page results. Defaults to None.
            no_cache (Optional[bool]): Will force SerpApi to fetch the Google Scholar Profiles results even if a cached version is already present. Defaults to False.
            _async (Optional[bool]): Defines the way you want to submit your search to SerpApi. Defaults to False.
            output (Optional[str]): Defines the final output you want. It can be set to 'json' (default) to get a structured JSON of the results, or 'html' to get the raw html retrieved. Defaults to 'json'.

        Returns:
            :class:`dict`: author id
                * author_id: the author_id of the author
        """  # noqa: E501
        return self._answer(self._author_id, _params(locals(), _async="async"))

    def _articles(self, params: dict[str, Any]) -> dict[str, Any]:
        data = self._ask("google_scholar", params)
        results = [item for item in data.get("organic_results") or [] if isinstance(item, dict)][:TOP]
        return {
            "title": [item.get("title", "") for item in results],
            "cited_by": [_field(item, "inline_links", "cited_by", "total") or "" for item in results],
            "organic_id": [item.get("result_id", "") for item in results],
            "snippets": [item.get("snippet", "") for item in results],
        }

    def _author(self, params: dict[str, Any]) -> dict[str, Any]:
        data = self._ask("google_scholar_author", params)
        author = data.get("author")
        if not isinstance(author, dict):
            raise ToolError(f"{self.name}: SerpApi found no author with the id {params['author_id']!r}")
        articles = [item for item in data.get("articles") or [] if isinstance(item, dict)][:TOP]
        return {
            "name": author.get("name", ""),
            "affiliations": author.get("affiliations", ""),
            "website": author.get("website", ""),
            "articles": [{"title": a.get("title", ""), "authors": a.get("authors", "")} for a in articles],
        }

    def _citation(self, params: dict[str, Any]) -> str:
        data = self._ask("google_scholar_cite", params)
        snippet = _field((data.get("citations") or [None])[0], "snippet")
        if not isinstance(snippet, str):
            raise ToolError(f"{self.name}: SerpApi found no citation for {params['q']!r}")
        # Lagent returns the first (MLA) citation's text itself.
        return snippet

    def _author_id(self, params: dict[str, Any]) -> dict[str, Any]:
        data = self._ask("google_scholar_profiles", params)
        author_id = _field((data.get("profiles") or [None])[0], "author_id")
        if not isinstance(author_id, str):
            raise ToolError(f"{self.name}: SerpApi found no author profile for {params['mauthors']!r}")
        return {"author_id": author_id}


AsyncGoogleScholar = async_twin(GoogleScholar, __name__)
