"""``GoogleScholar``: Lagent's scholar toolkit, on SerpApi's Google Scholar engines.

Lagent calls SerpApi through the ``google-search-results`` package; this toolkit asks
SerpApi's REST endpoint (``{base_url}/search.json?engine=...``) directly, through the
shared session of :mod:`lagent_like._private.http`, so the only dependency is
``requests`` and tests point ``base_url`` at a local server. SerpApi wants the key in
the query string: every message is redacted in every form the key may take there. The
key is read at call time (constructor, else ``SERPAPI_API_KEY``, else Lagent's
``SERPER_API_KEY``). The descriptions, API names and result keys are Lagent's.
"""

from __future__ import annotations

from typing import Any, Optional, Union

from .._private.http import HttpStatusError, http_request, read_key
from ..actions.base_action import BaseAction, tool_api
from ..actions.parser import BaseParser, JsonParser
from ..exceptions import ToolError
from ..schema import ActionReturn
from .async_twin import async_twin

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


class GoogleScholar(BaseAction):
    """Plugin for google scholar search.

    Args:
        api_key: the SerpApi key; ``None`` reads ``SERPAPI_API_KEY`` (or
            ``SERPER_API_KEY``, Lagent's name) at each call.
        base_url: SerpApi's root (a local server in tests).
        timeout: seconds allowed for connecting and for each read of an HTTP request.
        description: see :class:`BaseAction`.
        parser: see :class:`BaseAction`.
        enable: see :class:`BaseAction`.
    """

    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: str = "https://serpapi.com",
        timeout: float = 20.0,
        description: Optional[dict[str, Any]] = None,
        parser: type[BaseParser] = JsonParser,
        enable: bool = True,
    ) -> None:
        super().__init__(description, parser, enable)
        self.__api_key = api_key
        self.base_url = base_url.rstrip("/")
        self.request_timeout = timeout

    def __repr__(self) -> str:
        key = "given" if self.__api_key else f"from ${API_KEY_ENVS[0]}"
        name = type(self).__name__
        return f"{name}(base_url={self.base_url!r}, timeout={self.request_timeout}, api_key=<{key}>)"

    def _ask(self, engine: str, params: dict[str, Any]) -> Union[dict[str, Any], ActionReturn]:
        """SerpApi's JSON answer for ``engine``; an ``HTTP_ERROR`` record for a 4xx.

        ``None`` parameters are left out and booleans sent as ``true``/``false``.

        Raises:
            ToolError: no key, a failed request, or SerpApi's own ``error`` field.
        """
        key = read_key(self.__api_key, *API_KEY_ENVS)
        if not key:
            raise ToolError(NO_KEY_MESSAGE)
        query = {
            name: (str(value).lower() if isinstance(value, bool) else value)
            for name, value in params.items()
            if value is not None
        }
        try:
            reply = http_request(
                self.name,
                "GET",
                f"{self.base_url}/search.json",
                timeout=self.request_timeout,
                params={"engine": engine, **query, "api_key": key},
                secrets=[key, self.__api_key],
            )
        except HttpStatusError as exc:
            return exc.to_action_return()
        try:
            data = reply.json()
        except ValueError:
            raise ToolError(f"{self.name}: SerpApi answered with invalid JSON") from None
        if not isinstance(data, dict):
            raise ToolError(f"{self.name}: SerpApi answered with a JSON {type(data).__name__}, not an object")
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
    ) -> dict:  # type: ignore[type-arg]
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
        data = self._ask(
            "google_scholar",
            {
                "q": query,
                "cites": cites,
                "as_ylo": as_ylo,
                "as_yhi": as_yhi,
                "scisbd": scisbd,
                "cluster": cluster,
                "hl": hl,
                "lr": lr,
                "start": start,
                "num": num,
                "as_sdt": as_sdt,
                "safe": safe,
                "filter": filter,
                "as_vis": as_vis,
            },
        )
        if isinstance(data, ActionReturn):
            return data  # type: ignore[return-value]
        results = [item for item in data.get("organic_results") or [] if isinstance(item, dict)][:TOP]
        return {
            "title": [item.get("title", "") for item in results],
            "cited_by": [_field(item, "inline_links", "cited_by", "total") or "" for item in results],
            "organic_id": [item.get("result_id", "") for item in results],
            "snippets": [item.get("snippet", "") for item in results],
        }

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
    ) -> dict:  # type: ignore[type-arg]
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
        data = self._ask(
            "google_scholar_author",
            {
                "author_id": author_id,
                "hl": hl,
                "view_op": view_op,
                "sort": sort,
                "citation_id": citation_id,
                "start": start,
                "num": num,
                "no_cache": no_cache,
                "async": async_req,
                "output": output,
            },
        )
        if isinstance(data, ActionReturn):
            return data  # type: ignore[return-value]
        author = data.get("author")
        if not isinstance(author, dict):
            raise ToolError(f"{self.name}: SerpApi found no author with the id {author_id!r}")
        articles = [item for item in data.get("articles") or [] if isinstance(item, dict)][:TOP]
        return {
            "name": author.get("name", ""),
            "affiliations": author.get("affiliations", ""),
            "website": author.get("website", ""),
            "articles": [{"title": a.get("title", ""), "authors": a.get("authors", "")} for a in articles],
        }

    @tool_api(explode_return=True)
    def get_citation_format(
        self,
        q: str,
        no_cache: Optional[bool] = None,
        async_: Optional[bool] = None,
        output: Optional[str] = "json",
    ) -> dict:  # type: ignore[type-arg]
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
        data = self._ask(
            "google_scholar_cite", {"q": q, "no_cache": no_cache, "async": async_, "output": output}
        )
        if isinstance(data, ActionReturn):
            return data  # type: ignore[return-value]
        snippet = _field((data.get("citations") or [None])[0], "snippet")
        if not isinstance(snippet, str):
            raise ToolError(f"{self.name}: SerpApi found no citation for {q!r}")
        # Lagent returns the first (MLA) citation's text itself.
        return snippet  # type: ignore[return-value]

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
    ) -> dict:  # type: ignore[type-arg]
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
        data = self._ask(
            "google_scholar_profiles",
            {
                "mauthors": mauthors,
                "hl": hl,
                "after_author": after_author,
                "before_author": before_author,
                "no_cache": no_cache,
                "async": _async,
                "output": output,
            },
        )
        if isinstance(data, ActionReturn):
            return data  # type: ignore[return-value]
        author_id = _field((data.get("profiles") or [None])[0], "author_id")
        if not isinstance(author_id, str):
            raise ToolError(f"{self.name}: SerpApi found no author profile for {mauthors!r}")
        return {"author_id": author_id}


AsyncGoogleScholar = async_twin(GoogleScholar, __name__)
