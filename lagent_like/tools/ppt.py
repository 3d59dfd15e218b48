"""``PPT``: Lagent's slide-deck toolkit, on python-pptx (the ``[ppt]`` extra).

A model builds a deck step by step: ``create_file``, pages, ``submit_file``. The
deck lives on the tool instance between calls, as in Lagent. python-pptx is imported on
the first call, so the tool is listed, described and constructed without the extra; a
call without it answers with the ``pip install`` line to run.

The file is written where the model says (Lagent's contract: an absolute location),
but only as a ``.pptx``, and, when the operator gives ``root``, only inside that
directory (symbolic links resolved), because a path chosen by a model is untrusted.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Optional

from .._private.install import install_hint
from ..exceptions import ToolError
from ..parsers import BaseParser, JsonParser
from ..toolkits._base_action import BaseAction, tool_api
from ..toolkits._tool_state import Enable
from ._api_types import Dict
from ._async_twin import async_twin

if TYPE_CHECKING:
    from pptx.presentation import Presentation

__all__ = ["PPT", "THEME_MAPPING", "AsyncPPT"]

#: Layout names per theme: the deck template (``None``: python-pptx's default) and the
#: layouts used for the title page, a text page and a text-and-image page (Lagent's).
THEME_MAPPING: dict[str, dict[str, Any]] = {
    "Default": {
        "template": None,
        "title": "Title Slide",
        "single": "Title and Content",
        "two": "Two Content",
    }
}

#: What ``bullet_items`` are separated with (Lagent's marker).
SPAN = "[SPAN]"


def _import_pptx() -> Any:
    try:
        import pptx
    except ImportError:
        raise ToolError(f"PPT needs python-pptx: {install_hint('ppt')}") from None
    return pptx


class PPT(BaseAction):
    """Plugin to create ppt slides with text, paragraph, images in good looking styles.

    Args:
        theme_mapping: themes by name (see ``THEME_MAPPING``, the default).
        description: see :class:`BaseAction`.
        parser: see :class:`BaseAction`.
        enable: see :class:`BaseAction`.
        root: keyword-only: when given, every file read or written must be inside this
            directory.
    """

    def __init__(
        self,
        theme_mapping: Optional[dict[str, dict[str, Any]]] = None,
        description: Optional[dict[str, Any]] = None,
        parser: type[BaseParser] = JsonParser,
        enable: Enable = True,
        *,
        root: Optional[str] = None,
    ) -> None:
        super().__init__(description, parser, enable)
        self.theme_mapping = theme_mapping or THEME_MAPPING
        self.root = os.path.realpath(root) if root is not None else None
        self.pointer: Optional[Presentation] = None
        self.location: Optional[str] = None
        self.theme: Optional[str] = None

    @property
    def files_root(self) -> Optional[str]:
        """The directory whose files a viewer may serve (the inspector does), which is ``root``."""
        return self.root

    def _path(self, path: str, what: str) -> str:
        """``path`` made absolute, refused outside :attr:`root`."""
        full = os.path.realpath(path)
        if self.root is not None and os.path.commonpath([self.root, full]) != self.root:
            raise ToolError(f"{self.name}: the {what} {path!r} is outside the allowed directory {self.root}")
        return full

    def _deck(self) -> Presentation:
        if self.pointer is None:
            raise ToolError(f"{self.name}: no presentation yet; call create_file first")
        return self.pointer

    def _add_slide(self, kind: str, placeholders: int) -> list[Any]:
        """A new slide in the theme's ``kind`` layout; its first ``placeholders`` placeholders."""
        deck = self._deck()
        layout_name = self.theme_mapping[self.theme or "Default"][kind]
        layout = next((lay for lay in deck.slide_master.slide_layouts if lay.name == layout_name), None)
        if layout is None:
            raise ToolError(f"{self.name}: the theme {self.theme!r} has no layout named {layout_name!r}")
        slide = deck.slides.add_slide(layout)
        found = list(slide.placeholders)
        if len(found) < placeholders:
            raise ToolError(
                f"{self.name}: the layout {layout_name!r} has fewer than {placeholders} placeholders"
            )
        return [slide, *found[:placeholders]]

    @staticmethod
    def _bullets(frame: Any, bullet_items: str) -> None:
        for number, item in enumerate(bullet_items.split(SPAN)):
            paragraph = frame.paragraphs[0] if number == 0 else frame.add_paragraph()
            paragraph.text = item.strip()
            paragraph.level = 0

    @tool_api(explode_return=True)
    def create_file(self, theme: str, abs_location: str) -> Dict:
        """Create a pptx file with specific themes.

        Args:
            theme (:class:`str`): the theme used. The value should be one of ['Default'].
            abs_location (:class:`str`): the ppt file's absolute location

        Returns:
            :class:`dict`: operation status
                * status: the result of the execution
        """
        if theme not in self.theme_mapping:
            raise ToolError(f"{self.name}: unknown theme {theme!r}; use one of {sorted(self.theme_mapping)}")
        if not abs_location.lower().endswith(".pptx"):
            raise ToolError(f"{self.name}: abs_location must end with .pptx, got {abs_location!r}")
        location = self._path(abs_location, "file")
        pptx = _import_pptx()
        self.pointer = pptx.Presentation(self.theme_mapping[theme]["template"])
        self.location = location
        self.theme = theme
        return {"status": "created a ppt file."}

    @tool_api(explode_return=True)
    def add_first_page(self, title: str, subtitle: str) -> Dict:
        """Add the first page of ppt.

        Args:
            title (:class:`str`): the title of ppt
            subtitle (:class:`str`): the subtitle of ppt

        Returns:
            :class:`dict`: operation status
                * status: the result of the execution
        """
        _, ph_title, ph_subtitle = self._add_slide("title", 2)
        ph_title.text = title
        if subtitle:
            ph_subtitle.text = subtitle
        return {"status": "added page"}

    @tool_api(explode_return=True)
    def add_text_page(self, title: str, bullet_items: str) -> Dict:
        """Add text page of ppt.

        Args:
            title (:class:`str`): the title of the page
            bullet_items (:class:`str`): bullet_items should be string, for multiple bullet items, please use [SPAN] to separate them.

        Returns:
            :class:`dict`: operation status
                * status: the result of the execution
        """  # noqa: E501
        _, ph_title, ph_body = self._add_slide("single", 2)
        ph_title.text = title
        self._bullets(ph_body.text_frame, bullet_items)
        return {"status": "added page"}

    @tool_api(explode_return=True)
    def add_text_image_page(self, title: str, bullet_items: str, image: str) -> Dict:
        """Add a text page with one image. Image should be a path.

        Args:
            title (:class:`str`): the title of the page
            bullet_items (:class:`str`): bullet_items should be string, for multiple bullet items, please use [SPAN] to separate them.
            image (:class:`str`): the path of the image

        Returns:
            :class:`dict`: operation status
                * status: the result of the execution
        """  # noqa: E501
        path = self._path(image, "image")
        if not os.path.isfile(path):
            raise ToolError(f"{self.name}: no image file at {image!r}")
        slide, ph_title, ph_text, ph_image = self._add_slide("two", 3)
        ph_title.text = title
        try:
            # The width of the placeholder, the height of the image's own proportions.
            picture = slide.shapes.add_picture(path, ph_image.left, ph_image.top, width=ph_image.width)
        except Exception as exc:  # noqa: BLE001 - python-pptx raises several kinds for unreadable images
            raise ToolError(f"{self.name}: cannot read the image {image!r}: {type(exc).__name__}") from None
        picture.top = ph_image.top + (ph_image.height - picture.height) // 2
        ph_image.element.getparent().remove(ph_image.element)
        self._bullets(ph_text.text_frame, bullet_items)
        return {"status": "added page"}

    @tool_api(explode_return=True)
    def submit_file(self) -> Dict:
        """When all steps done, YOU MUST use submit_file() to submit your work.

        Returns:
            :class:`dict`: operation status
                * status: the result of the execution
        """  # noqa: D402 - Lagent's description, byte for byte
        deck = self._deck()
        location = str(self.location)  # set together with the deck
        try:
            deck.save(location)
        except OSError as exc:
            raise ToolError(f"{self.name}: cannot write {location}: {exc.strerror}") from None
        return {"status": f"submitted. view ppt at {location}"}


AsyncPPT = async_twin(PPT, __name__)
