"""``WebApiTool``: what the tools that ask one web API share.

``ArxivSearch``, ``BINGMap``, ``GoogleScholar`` and ``GoogleSearch`` each ask one HTTP
API the same way: a base URL, a timeout for each request (not the executor's, which
stays the executor's to choose), for most an API key read at call time (constructor,
else the environment, so the tool can be listed, described and constructed without
one) and kept out of ``repr`` and every message, and the same ending for a refused
request: the ``HTTP_ERROR`` record of :mod:`lagent_like._net.http`, returned as
the API's output (the executor fills in ``args`` and ``type``). This base holds those
once; each tool keeps only what its API does differently (where the key goes, what the
answer means).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Optional, TypeVar, Union

from ..._net.http import HttpReply, HttpStatusError, http_request, read_key, redact
from ...exceptions import ToolError
from ...toolkits._base_action import BaseAction
from ...toolkits._tool_state import Enable
from .._settings import with_defaults

if TYPE_CHECKING:
    from typing_extensions import ParamSpec, Unpack

    from ...parsers import BaseParser
    from ...schema import ActionReturn
    from .._settings import WebApiSettings

    P = ParamSpec("P")

__all__ = ["WebApiTool"]

R = TypeVar("R")


class WebApiTool(BaseAction, register=False):
    """Base of the tools that ask one web API (not a tool itself: it is not registered).

    A tool's positional parameters are Lagent's; the settings every such tool adds,
    ``base_url`` and ``timeout`` (:class:`~lagent_like.tools._settings.WebApiSettings`),
    are keyword-only, with the defaults of :attr:`web_defaults`.

    Args:
        description: see :class:`BaseAction`.
        parser: see :class:`BaseAction`.
        enable: see :class:`BaseAction`.
        key: the API key; ``None`` reads :attr:`key_envs` at each call.
        **web: ``base_url``, the API's URL (a local server in tests), without its
            trailing ``/`` unless :attr:`url_is_endpoint`; ``timeout``, the seconds
            allowed for connecting and for each read of an HTTP request (not the
            executor's timeout, which stays the executor's to choose).

    Raises:
        TypeError: a keyword other than ``base_url`` and ``timeout`` in ``web``.
    """

    #: The defaults of ``base_url`` and ``timeout``.
    web_defaults: ClassVar[WebApiSettings] = {"base_url": "", "timeout": 10.0}

    #: ``base_url`` is a whole endpoint, kept as given (else a root, its trailing ``/`` dropped).
    url_is_endpoint: ClassVar[bool] = False

    #: The environment variables read, in order, when no key is given (none means no key).
    key_envs: ClassVar[tuple[str, ...]] = ()

    #: The message of a call made without any key.
    no_key_message: ClassVar[str] = ""

    #: The constructor's name for the key, as ``repr`` shows it.
    key_argument: ClassVar[str] = "api_key"

    def __init__(
        self,
        description: Optional[dict[str, Any]],
        parser: type[BaseParser],
        enable: Enable,
        *,
        key: Optional[str] = None,
        **web: Unpack[WebApiSettings],
    ) -> None:
        super().__init__(description, parser, enable)
        settings = with_defaults(type(self).__name__, self.web_defaults, web)
        self.__key = key
        base_url = settings["base_url"]
        self.base_url = base_url if self.url_is_endpoint else base_url.rstrip("/")
        self.request_timeout = settings["timeout"]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(self._repr_fields())})"

    def _repr_fields(self) -> list[str]:
        """What ``repr`` shows: the URL, the timeout and where any key comes from (never the key)."""
        fields = [f"base_url={self.base_url!r}", f"timeout={self.request_timeout}"]
        if self.key_envs:
            source = "given" if self.__key else f"from ${self.key_envs[0]}"
            fields.append(f"{self.key_argument}=<{source}>")
        return fields

    def _key(self) -> str:
        """The key to send: the constructor's, else the first environment variable set.

        Raises:
            ToolError: no key anywhere (:attr:`no_key_message`).
        """
        key = read_key(self.__key, *self.key_envs)
        if not key:
            raise ToolError(self.no_key_message)
        return key

    def _redact(self, text: str) -> str:
        """``text`` without the given key or any of the environment's."""
        return redact(text, [self.__key, *(os.environ.get(name) for name in self.key_envs)])

    def _request(self, method: str, url: str, key: Optional[str] = None, **kwargs: Any) -> HttpReply:
        """One request through the shared session, ``key`` (and the given one) redacted.

        Args:
            method: ``'GET'`` or ``'POST'``.
            url: the full URL.
            key: the key sent in this request (in ``kwargs``' params or headers).
            **kwargs: ``params``, ``json``, ``headers`` of :func:`http_request`.

        Raises:
            ToolError: as :func:`~lagent_like._net.http.http_request` raises it.
        """
        return http_request(
            self.name, method, url, timeout=self.request_timeout, secrets=[key, self.__key], **kwargs
        )

    def _json_object(self, reply: HttpReply, service: str) -> dict[str, Any]:
        """The answer's JSON object; ``service`` names the API in the messages.

        Raises:
            ToolError: the body is not JSON, or not a JSON object.
        """
        try:
            data = reply.json()
        except ValueError:
            raise ToolError(f"{self.name}: {service} answered with invalid JSON") from None
        if not isinstance(data, dict):
            raise ToolError(
                f"{self.name}: {service} answered with a JSON {type(data).__name__}, not an object"
            )
        return data

    def _answer(self, produce: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> Union[R, ActionReturn]:
        """What an API returns: ``produce(*args, **kwargs)``, or the record of a refused request.

        A refusal (a 4xx other than 429) is the ``HTTP_ERROR`` record, returned as the
        API's output; every other failure is raised as the :class:`ToolError` it is.
        """
        try:
            return produce(*args, **kwargs)
        except HttpStatusError as exc:
            return exc.to_action_return()
