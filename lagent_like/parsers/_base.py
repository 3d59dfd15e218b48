"""``BaseParser``: what a parser is, and how a tool's return value becomes result items.

A parser is chosen per action (``BaseAction(parser=JsonParser)``). It does three jobs:
it tells the model how to pass arguments (``PARAMETER_DESCRIPTION``, inserted into the
action's description as ``parameter_description``), it reads the model's argument
string for one API (its *readers*, see :mod:`._arguments`), and it renders a tool's
return value as result items (``parse_outputs``).

Everything a parser needs per API is computed in its constructor: it compiles one
reader per API, and actions call that reader directly on every call. A subclass that
overrides ``parse_inputs`` (Lagent's way of writing a parser) still works: its
readers call ``parse_inputs``.
"""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Optional

from .._private.json_values import json_value
from .._private.records import (
    field_eq,
    field_hash,
    field_repr,
    frozen_delattr,
    frozen_setattr,
    mark_frozen,
)
from .._private.text import as_text, did_you_mean, preview
from ..exceptions import ParseError
from ..types._families import check_mode
from ._arguments import ApiArgs, Read, Reader, Repaired

if TYPE_CHECKING:
    from collections.abc import Mapping

    from ..spec._describe import ApiSpec

__all__ = ["BaseParser", "ParserInput", "render_outputs"]


@mark_frozen
@dataclasses.dataclass(init=False, repr=False, eq=False)
class ParserInput:
    """What a parser reads: the specs of a tool's APIs, how a model names each, their modes.

    An action gives it to its parser (``action.__parser_input__()``), so that parsers
    depend on specs only, never on the action classes.

    Attributes:
        name: the tool's name, for messages.
        specs: the spec of each API, by API key.
        label: the name a model uses for an API key (``'Tool.api'``, or ``'Tool'`` for
            a simple tool).
        modes: the validation mode of each API, resolved by the action (its
            ``@tool_api``'s, else the tool's, else ``"coerce"``).
    """

    name: str
    specs: Mapping[str, ApiSpec]
    label: Callable[[str], str]
    modes: Mapping[str, str]

    # Written here rather than by @dataclass, which compiles them at import
    # (lagent_like._private.records says why).
    def __init__(
        self,
        name: str,
        specs: Mapping[str, ApiSpec],
        label: Callable[[str], str],
        modes: Mapping[str, str],
    ) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "specs", specs)
        object.__setattr__(self, "label", label)
        object.__setattr__(self, "modes", modes)

    __repr__ = field_repr
    __eq__ = field_eq
    __hash__ = field_hash
    # Frozen: as @dataclass(frozen=True) would make it, without compiling at import.
    __setattr__ = frozen_setattr
    __delattr__ = frozen_delattr


class BaseParser:
    """Parser that hands the raw input to the API's first parameter.

    Subclasses set :attr:`PARAMETER_DESCRIPTION` and override ``_compile``, which
    builds a reader following the protocol of ``lagent_like.parsers._arguments``
    (or, as in Lagent, override :meth:`parse_inputs`).

    A parser reads the specs of its action's APIs (:class:`ApiSpec`) and changes
    nothing: the action puts :attr:`PARAMETER_DESCRIPTION` into its own description.

    Args:
        action: the action whose APIs this parser reads (Lagent's constructor): the
            parser asks it for its :class:`ParserInput` and reads that alone.
    """

    #: How a model must pass arguments, in English; inserted into each API description
    #: when non-empty (the text of the language chosen by :attr:`LANGUAGE`).
    PARAMETER_DESCRIPTION: str = ""
    #: The same sentence per language code; ``"en"`` is :attr:`PARAMETER_DESCRIPTION`.
    PARAMETER_DESCRIPTIONS: ClassVar[dict[str, str]] = {}
    #: The language of the inserted sentence; see :meth:`in_language`.
    LANGUAGE: ClassVar[str] = "en"

    def __init__(self, action: Any) -> None:
        # Lagent's constructor, kept as the adapter: the action says what the parser
        # needs (its ParserInput); the parser reads specs, never the action's internals.
        self.action = action
        self._input: ParserInput = action.__parser_input__()
        self._specs = self._input.specs
        self._args: dict[str, ApiArgs] = {
            key: ApiArgs.of(self._input.label(key), spec, self._input.modes[key])
            for key, spec in self._specs.items()
        }
        self._readers: dict[str, Reader] = {key: self._build(key, api) for key, api in self._args.items()}
        #: Readers made for another validation mode, by (API key, mode).
        self._in_mode: dict[tuple[str, str], Reader] = {}

    def _build(self, key: str, api: ApiArgs) -> Reader:
        custom = type(self).parse_inputs is not BaseParser.parse_inputs
        return self._delegate(key) if custom else self._compile(api)

    @classmethod
    def parameter_description(cls) -> str:
        """The sentence inserted as ``parameter_description``, in :attr:`LANGUAGE`.

        Raises:
            ValueError: the parser has no sentence in that language.
        """
        if cls.LANGUAGE == "en":
            return cls.PARAMETER_DESCRIPTION
        try:
            return cls.PARAMETER_DESCRIPTIONS[cls.LANGUAGE]
        except KeyError:
            raise ValueError(_no_language(cls, cls.LANGUAGE)) from None

    @classmethod
    def in_language(cls, language: str) -> type[BaseParser]:
        """This parser with its ``parameter_description`` in ``language``.

        ``"en"`` gives Lagent's English sentence (the default), ``"zh"`` the Chinese one
        of Lagent's tutorial. The result is a subclass, made once per language, to pass
        where a parser class goes: ``BaseAction(parser=JsonParser.in_language("zh"))``.

        Raises:
            ValueError: the parser has no sentence in ``language``; the message lists
                the languages it has.
        """
        if language == cls.LANGUAGE:
            return cls
        if language != "en" and language not in cls.PARAMETER_DESCRIPTIONS:
            raise ValueError(_no_language(cls, language))
        key = (cls, language)
        made = _LANGUAGE_VARIANTS.get(key)
        if made is None:
            made = type(cls.__name__, (cls,), {"LANGUAGE": language, "__module__": cls.__module__})
            made.__qualname__ = f"{cls.__qualname__}.in_language({language!r})"
            made = _LANGUAGE_VARIANTS.setdefault(key, made)
        return made

    def _delegate(self, name: str) -> Reader:
        """The reader of a Lagent-style parser: its ``parse_inputs``, whose ``ParseError`` is returned."""
        parse_inputs = self.parse_inputs

        def read(inputs: Any) -> Read:
            try:
                return parse_inputs(inputs, name)
            except ParseError as exc:
                return exc

        return read

    def _compile(self, api: ApiArgs) -> Reader:
        """Build the reader of one API; subclasses override this.

        The reader returns the checked arguments as a ``dict`` (a :class:`Repaired`
        when they were read after repairs) and returns, never raises, the
        ``ParseError`` of input it refuses (see ``lagent_like.parsers._arguments``).
        """
        first = api.order[0] if api.order else None

        def read(inputs: Any) -> Read:
            return {first: inputs} if first is not None else {}

        return read

    def reader(self, name: str, mode: Optional[str] = None) -> Reader:
        """The compiled reader of API ``name`` (``'run'`` for a simple tool).

        Args:
            name: the API key.
            mode: the validation mode (``"coerce"``, ``"strict"`` or ``"off"``) the
                caller resolved for this API (an executor's route: the API's own
                setting, else the tool's, else the executor's); ``None`` for the mode
                the action resolved by itself. A reader of a Lagent-style parser (one
                that overrides ``parse_inputs``) is the same in every mode.

        Raises:
            ParseError: the action has no such API.
            ToolDefinitionError: ``mode`` is not a validation mode.
        """
        try:
            if mode is None:
                return self._readers[name]
            return self._in_mode[(name, mode)]
        except (KeyError, TypeError):
            return self._new_reader(name, mode)

    def _new_reader(self, name: str, mode: Optional[str]) -> Reader:
        """The reader of ``name`` in ``mode``, made once (or the unknown API's error)."""
        api = self._args.get(name) if isinstance(name, str) else None
        if api is None:
            known = ", ".join(a.label for a in self._args.values())
            hint = did_you_mean(as_text(name), self._args)
            raise ParseError(f"{self._input.name} has no API {preview(name)}.{hint} APIs: {known}")
        if mode is not None:
            check_mode(mode, type(self).__qualname__)  # a typo is refused, not read as a mode
        if mode is None or mode == api.mode:
            made = self._readers[name]
        else:
            made = self._build(name, ApiArgs.of(api.label, self._specs[name], mode))
        return self._in_mode.setdefault((name, str(mode)), made)

    def parse_inputs(self, inputs: Any, name: str = "run") -> dict[str, Any]:
        """Parse ``inputs`` for API ``name`` into keyword arguments.

        Raises:
            ParseError: the input cannot be read or does not fit the API.
        """
        args = self.reader(name)(inputs)
        if isinstance(args, ParseError):
            raise args
        return args.args if isinstance(args, Repaired) else args

    def parse_outputs(self, outputs: Any) -> list[dict[str, Any]]:
        """Render a tool's return value as result items (see ``render_outputs``)."""
        return render_outputs(outputs)


def render_outputs(outputs: Any) -> list[dict[str, Any]]:
    """Render a tool's return value as result items: ``BaseParser``'s rendering.

    A dict, list, tuple, dataclass instance or pydantic model becomes JSON text
    (non-ASCII kept; inside it, values as :func:`~lagent_like._private.json_values.json_value`
    writes them: an ``Enum`` its value, a set a list, unknown objects their ``str``);
    a list of ``{'type', 'content'}`` items passes through unchanged; anything else
    becomes ``str(outputs)``.
    """
    if type(outputs) is str:
        content = outputs
    elif isinstance(outputs, (dict, list, tuple)):
        if isinstance(outputs, list) and _is_items(outputs):
            return list(outputs)
        content = _json_text(outputs)
    elif not isinstance(outputs, type) and (
        dataclasses.is_dataclass(outputs) or callable(getattr(outputs, "model_dump", None))
    ):
        # JSON like a dict, so that MCP can serve it as structured content.
        content = _json_text(json_value(outputs))
    else:
        content = str(outputs)
    return [{"type": "text", "content": content}]


def _json_text(outputs: Any) -> str:
    """``outputs`` as JSON text: the C encoder first, the one JSON view of values if it refuses.

    The encoder takes most results as they are (fast for large ones); keys it refuses
    (a tuple, an ``Enum``) are written as :func:`json_value` writes them, rather than
    failing a call whose tool has already run.
    """
    try:
        return json.dumps(outputs, ensure_ascii=False, default=json_value)
    except (TypeError, ValueError):
        return json.dumps(json_value(outputs), ensure_ascii=False)


def _is_items(outputs: list[Any]) -> bool:
    return bool(outputs) and all(isinstance(i, dict) and "type" in i and "content" in i for i in outputs)


#: Parser classes made by ``in_language``, so that each language is one class.
_LANGUAGE_VARIANTS: dict[tuple[type[BaseParser], str], type[BaseParser]] = {}


def _no_language(parser: type[BaseParser], language: str) -> str:
    known = sorted({"en", *parser.PARAMETER_DESCRIPTIONS})
    return f"{parser.__name__} has no parameter_description in {language!r}; languages: {known}"
