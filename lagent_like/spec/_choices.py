"""Hugging Face's ``(choices: [...])`` convention in an Args entry, read into an ``enum``.

``transformers.utils.get_json_schema`` reads ``unit: the unit (choices: ["C", "F"])``
as ``"enum": ["C", "F"]`` and drops the parenthesised part from the description; tools
written for it are described and checked the same way here, by annotating the
parameter ``Literal[choices]``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Literal, Optional

from ..exceptions import ToolDefinitionError
from ._api_spec import NO_DEFAULT

if TYPE_CHECKING:
    from ._api_spec import Param
    from ._docstrings import DocInfo

__all__ = ["choice_annotations", "split_choices"]

#: Hugging Face's ``(choices: [...])`` at the end of an Args entry (``get_json_schema``).
_CHOICES = re.compile(r"\(\s*choices\s*:\s*(.*?)\)\s*$", re.IGNORECASE | re.DOTALL)


def split_choices(info: DocInfo) -> tuple[dict[str, tuple[Any, ...]], list[str]]:
    """Read Hugging Face's ``(choices: [...])`` out of the Args entries of ``info``.

    Each entry whose description ends with ``(choices: <JSON list>)`` loses that part
    (as ``transformers.utils.get_json_schema`` removes it) and its values are returned,
    to become the parameter's ``enum``. Call only when the docstring holds the word.

    Returns:
        ``(parameter name -> allowed values, notes)``; a note for each entry whose
        choices are not a non-empty JSON list of scalars (left in its description).
    """
    import json  # import time: only docstrings that use the convention

    found: dict[str, tuple[Any, ...]] = {}
    notes: list[str] = []
    for name, (type_text, text) in info.params.items():
        match = _CHOICES.search(text)
        if match is None:
            continue
        try:
            values = json.loads(match.group(1))
        except ValueError:
            values = None
        scalar = isinstance(values, list) and all(
            v is None or isinstance(v, (str, int, float, bool)) for v in values
        )
        if not (scalar and values):
            notes.append(
                f"the choices of parameter {name!r} are not a non-empty JSON list of strings or "
                f'numbers, e.g. (choices: ["celsius", "fahrenheit"]); left in its description'
            )
            continue
        found[name] = tuple(values)
        info.params[name] = (type_text, text[: match.start()].rstrip())
    return found, notes


def choice_annotations(
    owner: str, params: list[Param], choices: dict[str, tuple[Any, ...]]
) -> dict[str, Any]:
    """The annotation of each parameter in ``params`` that lists choices: ``Literal[choices]``.

    The choices are then described (``enum``) and checked as a ``Literal`` would be;
    ``Optional`` stays when the parameter's own type takes ``None``.

    Raises:
        ToolDefinitionError: a parameter's type refuses one of its choices.
    """
    from ..types._families import Refusal
    from ..types._validation import compile_check

    problems = []
    found: dict[str, Any] = {}
    for p in params:
        values = choices.get(p.name)
        if values is None:
            continue
        annotation: Any = Literal[values]
        if p.declared is not NO_DEFAULT:
            check = compile_check(p.declared, "strict")
            refused = [v for v in values if type(check(v)) is Refusal]
            if refused:
                problems.append(
                    f"parameter {p.name!r} lists the choices {refused}, which its type "
                    f"{getattr(p.declared, '__name__', p.declared)!s} does not take"
                )
                continue
            if None not in values and type(check(None)) is not Refusal:
                annotation = Optional[annotation]
        found[p.name] = annotation
    if problems:
        raise ToolDefinitionError(owner, problems)
    return found
