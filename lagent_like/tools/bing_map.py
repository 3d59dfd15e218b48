"""``BINGMap``: Lagent's map toolkit, on the Bing Maps REST API.

Routes, distances, coordinates and nearby places, through the shared session of
:mod:`lagent_like._private.http` (timeouts, retryable failures, size cap). Bing Maps
wants its key in the query string, so every message built from a request is redacted
in every form the key may take there (URL-encoded included). The key is read at call
time (constructor, else ``BING_MAP_KEY``), so the tool can be listed, described and
constructed without one. The descriptions a model sees are Lagent's, word for word.
"""

from __future__ import annotations

from typing import Any, Optional, Union

from .._private.http import HttpStatusError, http_request, read_key
from ..actions.base_action import BaseAction, tool_api
from ..actions.parser import BaseParser, JsonParser
from ..exceptions import ToolError
from ..schema import ActionReturn
from .async_twin import async_twin

__all__ = ["AsyncBINGMap", "BINGMap"]

#: The environment variable read when no key is passed to the constructor (Lagent's).
API_KEY_ENV = "BING_MAP_KEY"

#: The message of a call made without any key.
NO_KEY_MESSAGE = f"no Bing Maps key: pass key or set {API_KEY_ENV}"

#: How many places ``search_nearby`` returns at most (Lagent's number).
MAX_PLACES = 5


class BINGMap(BaseAction):
    """BING Map plugin for looking up map information.

    Args:
        key: the Bing Maps key; ``None`` reads ``BING_MAP_KEY`` at each call.
        base_url: the REST API root (a local server in tests).
        timeout: seconds allowed for connecting and for each read of an HTTP request
            (not the executor's timeout).
        description: see :class:`BaseAction`.
        parser: see :class:`BaseAction`.
        enable: see :class:`BaseAction`.
    """

    def __init__(
        self,
        key: Optional[str] = None,
        base_url: str = "https://dev.virtualearth.net/REST/V1",
        timeout: float = 10.0,
        description: Optional[dict[str, Any]] = None,
        parser: type[BaseParser] = JsonParser,
        enable: bool = True,
    ) -> None:
        super().__init__(description, parser, enable)
        self.__key = key
        self.base_url = base_url.rstrip("/")
        self.request_timeout = timeout

    def __repr__(self) -> str:
        key = "given" if self.__key else f"from ${API_KEY_ENV}"
        return (
            f"{type(self).__name__}(base_url={self.base_url!r}, timeout={self.request_timeout}, key=<{key}>)"
        )

    def _resources(self, path: str, params: dict[str, Any], what: str) -> Union[list[Any], ActionReturn]:
        """The ``resources`` of Bing's first resource set; an ``HTTP_ERROR`` record for a 4xx.

        Raises:
            ToolError: no key, a failed request, or an answer without resources.
        """
        key = read_key(self.__key, API_KEY_ENV)
        if not key:
            raise ToolError(NO_KEY_MESSAGE)
        try:
            reply = http_request(
                self.name,
                "GET",
                f"{self.base_url}/{path}",
                timeout=self.request_timeout,
                params={**params, "key": key},
                secrets=[key, self.__key],
            )
        except HttpStatusError as exc:
            return exc.to_action_return()
        try:
            data = reply.json()
            resources = data["resourceSets"][0]["resources"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise ToolError(f"{self.name}: Bing Maps answered without a resource set for {what}") from None
        if not isinstance(resources, list):
            raise ToolError(f"{self.name}: Bing Maps answered without a resource set for {what}")
        return resources

    def _route(self, start: str, end: str) -> Union[dict[str, Any], ActionReturn]:
        what = f"a route from {start!r} to {end!r}"
        found = self._resources("Routes/Driving", {"o": "json", "wp.0": start, "wp.1": end}, what)
        if isinstance(found, ActionReturn):
            return found
        if not found or not isinstance(found[0], dict):
            raise ToolError(f"{self.name}: Bing Maps found no route from {start!r} to {end!r}")
        route: dict[str, Any] = found[0]
        return route

    def _point(self, location: str) -> Union[tuple[float, float], ActionReturn]:
        found = self._resources("Locations", {"query": location}, f"the location {location!r}")
        if isinstance(found, ActionReturn):
            return found
        try:
            latitude, longitude = found[0]["point"]["coordinates"][:2]
        except (KeyError, IndexError, TypeError, ValueError):
            raise ToolError(f"{self.name}: Bing Maps found no location named {location!r}") from None
        return latitude, longitude

    @tool_api(explode_return=True)
    def get_distance(self, start: str, end: str) -> dict:  # type: ignore[type-arg]
        """Get the distance between two locations in km.

        Args:
            start (:class:`str`): The start location
            end (:class:`str`): The end location

        Returns:
            :class:`dict`: distance information
                * distance (str): the distance in km.
        """
        route = self._route(start, end)
        if isinstance(route, ActionReturn):
            return route  # type: ignore[return-value]
        return {"distance": route.get("travelDistance")}

    @tool_api(explode_return=True)
    def get_route(self, start: str, end: str) -> dict:  # type: ignore[type-arg]
        """Get the route between two locations in km.

        Args:
            start (:class:`str`): The start location
            end (:class:`str`): The end location

        Returns:
            :class:`dict`: route information
                * route (list): the route, a list of actions.
        """
        route = self._route(start, end)
        if isinstance(route, ActionReturn):
            return route  # type: ignore[return-value]
        steps = []
        for leg in route.get("routeLegs") or []:
            for item in leg.get("itineraryItems") or [] if isinstance(leg, dict) else []:
                instruction = item.get("instruction") if isinstance(item, dict) else None
                if isinstance(instruction, dict) and "text" in instruction:
                    steps.append(instruction["text"])
        return {"route": steps}

    @tool_api(explode_return=True)
    def get_coordinates(self, location: str) -> dict:  # type: ignore[type-arg]
        """Get the coordinates of a location.

        Args:
            location (:class:`str`): the location need to get coordinates.

        Returns:
            :class:`dict`: coordinates information
                * latitude (float): the latitude of the location.
                * longitude (float): the longitude of the location.
        """
        point = self._point(location)
        if isinstance(point, ActionReturn):
            return point  # type: ignore[return-value]
        return {"latitude": point[0], "longitude": point[1]}

    @tool_api(explode_return=True)
    def search_nearby(
        self,
        search_term: str,
        places: str = "unknown",
        latitude: float = 0.0,
        longitude: float = 0.0,
        radius: int = 5000,
    ) -> dict:  # type: ignore[type-arg]
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
        if places != "unknown":
            point = self._point(places)
            if isinstance(point, ActionReturn):
                return point  # type: ignore[return-value]
            latitude, longitude = point
        params = {"query": search_term, "userLocation": f"{latitude},{longitude}", "radius": radius}
        found = self._resources("LocalSearch", params, f"places near {latitude},{longitude}")
        if isinstance(found, ActionReturn):
            return found  # type: ignore[return-value]
        place = []
        for item in found:
            if not isinstance(item, dict):
                continue
            address = item.get("Address")
            formatted = address.get("formattedAddress", "") if isinstance(address, dict) else ""
            place.append({"name": item.get("name", ""), "address": formatted})
            if len(place) == MAX_PLACES:
                break
        # Lagent's key is 'place', although its description says 'places'.
        return {"place": place}


AsyncBINGMap = async_twin(BINGMap, __name__)
