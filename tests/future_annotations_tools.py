from __future__ import annotations

# Tools written under ``from __future__ import annotations`` (every annotation a string),
# imported by ``test_types.py``: describing them must resolve the strings in this module's
# namespace, including return annotations naming the class still being defined.
import dataclasses
import enum
from typing import List, Optional

from typing_extensions import Annotated, Literal, TypedDict

from lagent_like import BaseAction, tool_api


class Point(TypedDict):
    x: int
    y: int


@dataclasses.dataclass
class Box:
    width: float
    height: float


class Shade(enum.Enum):
    LIGHT = "light"
    DARK = "dark"


@tool_api
def area(
    box: Box,
    origin: Point,
    scale: Optional[int] = None,
    unit: Literal["cm", "in"] = "cm",
    shade: Shade = Shade.LIGHT,
    tags: List[str] = (),
    ratio: Annotated[float, "aspect ratio"] = 1.0,
) -> float:
    """Area of a box.

    Args:
        box: the box
        origin: where it sits
        scale: a factor
        unit: the unit
        shade: the shade
        tags: labels
        ratio: ignored, the Annotated label wins
    """
    return box.width * box.height


class FutureShapes(BaseAction):
    """Shape tools."""

    @tool_api
    def grow(self, box: Box, by: float = 1.0) -> FutureShapes:
        """Grow a box.

        Args:
            box: the box
            by: the factor
        """
        return self

    @tool_api
    def corners(self, points: List[Point]) -> List[FutureShapes]:
        """Corners of a shape.

        Args:
            points: the corners
        """
        return [self]


class FutureCounter(BaseAction):
    def run(self, start: int, step: Optional[int] = None) -> FutureCounter:
        """Count from a number.

        Args:
            start: where to start
            step: the step
        """
        return self
