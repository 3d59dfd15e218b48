"""``BINGMap``: Lagent's map toolkit, on the Bing Maps REST API.

Routes, distances, coordinates and nearby places, through the shared session of
:mod:`lagent_like._net.http` (timeouts, retryable failures, size cap). Bing Maps
wants its key in the query string, so every message built from a request is redacted
in every form the key may take there (URL-encoded included). The key is read at call
time (constructor, else ``BING_MAP_KEY``), so the tool can be listed, described and
constructed without one. The descriptions a model sees are Lagent's, word for word.
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
    from typing_extensions import Unpack

    from .._settings import WebApiSettings

__all__ = ["AsyncBINGMap", "BINGMap"]

#: The environment variable read when no key is passed to the constructor (Lagent's).
API_KEY_ENV = "BING_MAP_KEY"

#: The message of a call made without any key.
NO_KEY_MESSAGE = f"no Bing Maps key: pass key or set {API_KEY_ENV}"

#: How many places ``search_nearby`` returns at most (Lagent's number).
MAX_PLACES = 5


class BINGMap(WebApiTool):
    """BING Map plugin for looking up map information.

    Args:
        key: the Bing Maps key; ``None`` reads ``BING_MAP_KEY`` at each call.
        description: see :class:`BaseAction`.
        parser: see :class:`BaseAction`.
        enable: see :class:`BaseAction`.
        base_url: keyword-only: the REST API root (a local server in tests).
        timeout: keyword-only: seconds allowed for connecting and for each read of an
            HTTP request (not the executor's timeout).
    """

    key_envs = (API_KEY_ENV,)
    no_key_message = NO_KEY_MESSAGE
    key_argument = "key"

    web_defaults: ClassVar[WebApiSettings] = {
        "base_url": "https://dev.virtualearth.net/REST/V1",
        "timeout": 10.0,
    }

    def __init__(
        self,
        key: Optional[str] = None,
        description: Optional[dict[str, Any]] = None,
        parser: type[BaseParser] = JsonParser,
        enable: Enable = True,
        **web: Unpack[WebApiSettings],
    ) -> None:
        super().__init__(description, parser, enable, key=key, **web)

    def _resources(self, path: str, params: dict[str, Any], what: str) -> list[Any]:
        """The ``resources`` of Bing's first resource set.

        Raises:
            ToolError: no key, a failed request (:class:`HttpStatusError` for a 4xx),
                or an answer without resources.
        """
        key = self._key()
        reply = self._request("GET", f"{self.base_url}/{path}", key, params={**params, "key": key})
        try:
            data = reply.json()
            resources = data["resourceSets"][0]["resources"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise ToolError(f"{self.name}: Bing Maps answered without a resource set for {what}") from None
        if not isinstance(resources, list):
            raise ToolError(f"{self.name}: Bing Maps answered without a resource set for {what}")
        return resources

    def _route(self, start: str, end: str) -> dict[str, Any]:
        what = f"a route from {start!r} to {end!r}"
        found = self._resources("Routes/Driving", {"o": "json", "wp.0": start, "wp.1": end}, what)
        if not found or not isinstance(found[0], dict):
            raise ToolError(f"{self.name}: Bing Maps found no route from {start!r} to {end!r}")
        route: dict[str, Any] = found[0]
        return route

    def _point(self, location: str) -> tuple[float, float]:
        found = self._resources("Locations", {"query": location}, f"the location {location!r}")
        try:
            latitude, longitude = found[0]["point"]["coordinates"][:2]
        except (KeyError, IndexError, TypeError, ValueError):
            raise ToolError(f"{self.name}: Bing Maps found no location named {location!r}") from None
        return latitude, longitude

    def _distance(self, start: str, end: str) -> dict[str, Any]:
        return {"distance": self._route(start, end).get("travelDistance")}

    def _steps(self, start: str, end: str) -> dict[str, Any]:
        steps = []
        for leg in self._route(start, end).get("routeLegs") or []:
            for item in leg.get("itineraryItems") or [] if isinstance(leg, dict) else []:
                instruction = item.get("instruction") if isinstance(item, dict) else None
                if isinstance(instruction, dict) and "text" in instruction:
                    steps.append(instruction["text"])
        return {"route": steps}

    def _coordinates(self, location: str) -> dict[str, Any]:
        latitude, longitude = self._point(location)
        return {"latitude": latitude, "longitude": longitude}

    def _nearby(
        self, search_term: str, places: str, latitude: float, longitude: float, radius: int
    ) -> dict[str, Any]:
        if places != "unknown":
            latitude, longitude = self._point(places)
        params = {"query": search_term, "userLocation": f"{latitude},{longitude}", "radius": radius}
        place = []
        for item in self._resources("LocalSearch", params, f"places near {latitude},{longitude}"):
            if not isinstance(item, dict):
                continue
            address = item.get("Address")
            formatted = address.get("formattedAddress", "") if isinstance(address, dict) else ""
            place.append({"name": item.get("name", ""), "address": formatted})
            if len(place) == MAX_PLACES:
                break
        # Lagent's key is 'place', although its description says 'places'.
        return {"place": place}

    @tool_api(explode_return=True)
    def get_distance(self, start: str, end: str) -> DictOrRecord:
        """Get the distance between two locations in km.

        Args:
            start (:class:`str`): The start location
            end (:class:`str`): The end location

        Returns:
            :class:`dict`: distance information
                * distance (str): the distance in km.
        """
        return self._answer(self._distance, start, end)

    @tool_api(explode_return=True)
    def get_route(self, start: str, end: str) -> DictOrRecord:
        """Get the route between two locations in km.

        Args:
            start (:class:`str`): The start location
            end (:class:`str`): The end location

        Returns:
            :class:`dict`: route information
                * route (list): the route, a list of actions.
        """
        return self._answer(self._steps, start, end)

    @tool_api(explode_return=True)
    def get_coordinates(self, location: str) -> DictOrRecord:
        """Get the coordinates of a location.

        Args:
            location (:class:`str`): the location need to get coordinates.

        Returns:
            :class:`dict`: coordinates information
                * latitude (float): the latitude of the location.
                * longitude (float): the longitude of the location.
        """
        return self._answer(self._coordinates, location)

    @tool_api(explode_return=True)
    def search_nearby(
        self,
        search_term: str,
        places: str = "unknown",
        latitude: float = 0.0,
        longitude: float = 0.0,
        radius: int = 5000,
    ) -> DictOrRecord:
        """Search for places nearby a location, within a given radius, and return the results into a list. You can use either the places name or the latitude and longitude.

        Args:
            search_term (:class:`str`): the place name.
            places (:class:`str`): the name of the location. Defaults to ``'unknown'``.
            latitude (:class:`float`): the latitude of the location. Defaults to ``0.0``.
            longitude (:class:`float`): the longitude of the location. Defaults to ``0.0``.
            radius (:class:`int`): radius in meters. Defaults to ``5000``.

        Returns:
            :class:`dict`: places information
                * places (list): the list of places, each place is a dict with name and address, at most 5 places.
        """  # noqa: E501
        return self._answer(self._nearby, search_term, places, latitude, longitude, radius)


AsyncBINGMap = async_twin(BINGMap, __name__)
