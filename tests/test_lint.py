"""The schema doctor: each kind of finding, the targets it lints, and how findings print."""

from __future__ import annotations

import dataclasses
import json
import math
import textwrap
from itertools import count
from pathlib import Path
from typing import Any

import pytest
from typing_extensions import Annotated

from lagent_like import ActionExecutor, BaseAction, BaseParser, ToolNotFoundError, tool_api
from lagent_like.cli.lint import LintFinding, format_findings, lint_action, lint_actions, lint_targets

BUILTINS = {"BaseAction", "InvalidAction", "NoAction", "FinishAction"}
_MODULE_NUMBERS = count()


def tokens(entry: dict[str, Any]) -> int:
    return math.ceil(len(json.dumps(entry, ensure_ascii=False)) / 4)


def size_message(entry: dict[str, Any]) -> str:
    return f"the description is about {tokens(entry)} tokens (estimated as its JSON length / 4)"


def of_code(findings: list[LintFinding], code: str) -> list[tuple[str, str, str]]:
    """``(severity, api, message)`` of the findings with ``code``."""
    return [(f.severity, f.api, f.message) for f in findings if f.code == code]


def without_size(findings: list[LintFinding]) -> list[LintFinding]:
    return [f for f in findings if f.code != "size"]


def write_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str) -> str:
    """Write ``source`` as a module with a name no other test uses; return the name."""
    name = f"lint_target_mod_{next(_MODULE_NUMBERS)}_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


# -- a clean tool ---------------------------------------------------------------------------


class LintCleanEcho(BaseAction):
    def run(self, text: str) -> str:
        """Echo the text back.

        Args:
            text: what to echo
        """
        return text


def test_well_described_tool_only_reports_its_size() -> None:
    tool = LintCleanEcho()
    assert lint_action(tool) == [
        LintFinding("info", "LintCleanEcho", "LintCleanEcho", "size", size_message(tool.description))
    ]


# -- no-description -------------------------------------------------------------------------


class LintNoDocSimple(BaseAction):
    def run(self) -> str:
        return ""


class LintNoDocKit(BaseAction):
    """A toolkit whose API says nothing."""

    @tool_api
    def ping(self) -> str:
        return "pong"


class LintClassDocOnly(BaseAction):
    """Described by its class docstring."""

    def run(self) -> str:
        return ""


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        pytest.param(
            LintNoDocSimple(),
            [
                (
                    "error",
                    "LintNoDocSimple",
                    "no description: the model is not told what this API does; "
                    "add a docstring to run or to the class",
                )
            ],
            id="simple-tool",
        ),
        pytest.param(
            LintNoDocKit(),
            [
                (
                    "error",
                    "LintNoDocKit.ping",
                    "no description: the model is not told what this API does; add a docstring to the method",
                )
            ],
            id="toolkit-api",
        ),
        pytest.param(LintClassDocOnly(), [], id="class-docstring-describes-a-simple-tool"),
    ],
)
def test_api_without_description_is_an_error(
    action: BaseAction, expected: list[tuple[str, str, str]]
) -> None:
    assert of_code(lint_action(action), "no-description") == expected


# -- param-no-description -------------------------------------------------------------------


class LintParamUndocumented(BaseAction):
    def run(self, text: str, times: int = 1) -> str:
        """Repeat text.

        Args:
            times: how many times
        """
        return text * times


class LintParamAnnotatedLabel(BaseAction):
    def run(self, text: Annotated[str, "what to repeat"]) -> str:
        """Repeat text."""
        return text


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        pytest.param(
            LintParamUndocumented(),
            [
                (
                    "warning",
                    "LintParamUndocumented",
                    "parameter 'text' has no description; document it under Args: in the docstring "
                    "(or annotate it Annotated[T, 'description'])",
                )
            ],
            id="missing-from-args-section",
        ),
        pytest.param(LintParamAnnotatedLabel(), [], id="annotated-label-is-a-description"),
    ],
)
def test_parameter_without_description_is_a_warning(
    action: BaseAction, expected: list[tuple[str, str, str]]
) -> None:
    assert of_code(lint_action(action), "param-no-description") == expected


# -- default-string-type --------------------------------------------------------------------


class LintUntyped(BaseAction):
    def run(self, query, limit: int = 3) -> str:  # type: ignore[no-untyped-def]
        """Search.

        Args:
            query: what to look for
            limit: how many results
        """
        return str(query)


class LintDocstringTyped(BaseAction):
    def run(self, query, limit=3) -> str:  # type: ignore[no-untyped-def]
        """Search.

        Args:
            query (str): what to look for
            limit (int): how many results
        """
        return str(query)


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        pytest.param(
            LintUntyped(),
            [
                (
                    "warning",
                    "LintUntyped",
                    "parameter 'query' has no type annotation and no docstring type, so it is "
                    "described as STRING and its values are not checked; annotate it",
                )
            ],
            id="neither-annotation-nor-docstring-type",
        ),
        pytest.param(LintDocstringTyped(), [], id="docstring-types-count"),
    ],
)
def test_parameter_that_fell_back_to_string_is_a_warning(
    action: BaseAction, expected: list[tuple[str, str, str]]
) -> None:
    assert of_code(lint_action(action), "default-string-type") == expected


# -- illegal-name ---------------------------------------------------------------------------


class LintSpacedName(BaseAction):
    __tool_name__ = "lint spaced"

    def run(self) -> str:
        """Spaced."""
        return ""


class LintSpacedApi(BaseAction):
    """Weather."""

    @tool_api(name="get weather")
    def get(self) -> str:
        """Get the weather."""
        return ""


class LintSpacedBoth(BaseAction):
    """Weather."""

    __tool_name__ = "lint both"

    @tool_api(name="get weather")
    def get(self) -> str:
        """Get the weather."""
        return ""


class LintLegalKit(BaseAction):
    """Legal names."""

    @tool_api
    def get_weather(self) -> str:
        """Get the weather."""
        return ""


LONG_TOOL_NAME = "LintLong" + "x" * 60


class LintLongName(BaseAction):
    __tool_name__ = LONG_TOOL_NAME

    def run(self) -> str:
        """Long."""
        return ""


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        pytest.param(
            LintSpacedName(),
            [
                (
                    "warning",
                    "lint spaced",
                    "the tool name 'lint spaced' is not legal for function calling (^[a-zA-Z0-9_-]{1,64}$), "
                    "so exports call this API 'lint_spaced'; to choose the name yourself, "
                    "set __tool_name__ on the class",
                )
            ],
            id="simple-tool-name",
        ),
        pytest.param(
            LintSpacedApi(),
            [
                (
                    "warning",
                    "LintSpacedApi.get weather",
                    "the API name 'get weather' is not legal for function calling (^[a-zA-Z0-9_-]{1,64}$), "
                    "so exports call this API 'LintSpacedApi__get_weather'; to choose the name yourself, "
                    "pass name=... to @tool_api",
                )
            ],
            id="api-name",
        ),
        pytest.param(
            LintSpacedBoth(),
            [
                (
                    "warning",
                    "lint both.get weather",
                    "the tool name 'lint both' and the API name 'get weather' are not legal for function "
                    "calling (^[a-zA-Z0-9_-]{1,64}$), so exports call this API 'lint_both__get_weather'; "
                    "to choose the name yourself, set __tool_name__ on the class and pass name=... to @tool_api",
                )
            ],
            id="tool-and-api-name",
        ),
        pytest.param(LintLegalKit(), [], id="legal-toolkit-api-is-fine"),
    ],
)
def test_name_illegal_for_function_calling_is_a_warning_naming_the_alias(
    action: BaseAction, expected: list[tuple[str, str, str]]
) -> None:
    assert of_code(lint_action(action), "illegal-name") == expected


def test_too_long_tool_name_names_the_hashed_alias_exports_use() -> None:
    tool = LintLongName()
    alias = ActionExecutor([tool]).alias_of(LONG_TOOL_NAME)
    assert of_code(lint_action(tool), "illegal-name") == [
        (
            "warning",
            LONG_TOOL_NAME,
            f"the tool name {LONG_TOOL_NAME!r} is not legal for function calling (^[a-zA-Z0-9_-]{{1,64}}$), "
            f"so exports call this API {alias!r}; to choose the name yourself, set __tool_name__ on the class",
        )
    ]


class LintClash(BaseAction):
    """Clashing toolkit."""

    @tool_api
    def api(self) -> str:
        """An API."""
        return ""


class LintClashTwin(BaseAction):
    __tool_name__ = "LintClash__api"

    def run(self) -> str:
        """Takes the readable alias of LintClash.api."""
        return ""


class LintLongKit(BaseAction):
    """Long toolkit name."""

    __tool_name__ = "LintLongKit" + "k" * 30

    @tool_api
    def a_rather_long_api_name_too(self) -> str:
        """An API."""
        return ""


@pytest.mark.parametrize(
    ("actions", "name", "reason"),
    [
        pytest.param(
            [LintClash(), LintClashTwin()],
            "LintClash.api",
            "'LintClash__api' is already another tool's name",
            id="readable-alias-taken",
        ),
        pytest.param(
            [LintLongKit()],
            f"LintLongKit{'k' * 30}.a_rather_long_api_name_too",
            f"'LintLongKit{'k' * 30}__a_rather_long_api_name_too' is longer than 64 characters",
            id="readable-alias-too-long",
        ),
    ],
)
def test_legal_parts_whose_readable_alias_cannot_be_used_are_a_warning(
    actions: list[BaseAction], name: str, reason: str
) -> None:
    alias = ActionExecutor(actions).alias_of(name)
    assert of_code(lint_actions(actions), "illegal-name") == [
        (
            "warning",
            name,
            f"exports call this API {alias!r} because {reason}; "
            "choose a shorter or distinct tool or API name to keep the readable one",
        )
    ]


# -- size and large-description --------------------------------------------------------------


class LintSized(BaseAction):
    def run(self) -> str:
        """Say hi."""
        return "hi"


class LintSizedKit(BaseAction):
    """Greetings."""

    @tool_api
    def hello(self) -> str:
        """Say hello."""
        return "hello"


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        # {"name": "LintSized", "description": "Say hi.", "parameters": [], "required": []}: 81 chars
        pytest.param(
            LintSized(parser=BaseParser),
            [("info", "LintSized", "the description is about 21 tokens (estimated as its JSON length / 4)")],
            id="simple-tool",
        ),
        # The entry the model receives is named 'Tool.api' (93 chars).
        pytest.param(
            LintSizedKit(parser=BaseParser),
            [
                (
                    "info",
                    "LintSizedKit.hello",
                    "the description is about 24 tokens (estimated as its JSON length / 4)",
                )
            ],
            id="toolkit-api",
        ),
    ],
)
def test_size_of_the_description_the_model_receives_is_reported_in_tokens(
    action: BaseAction, expected: list[tuple[str, str, str]]
) -> None:
    assert of_code(lint_action(action), "size") == expected


def test_size_counts_the_parser_parameter_description() -> None:
    tool = LintSized()
    assert "parameter_description" in tool.description
    assert of_code(lint_action(tool), "size") == [("info", "LintSized", size_message(tool.description))]


class LintVerbose(BaseAction):
    def run(self) -> str:
        """Replaced by the description given to the constructor."""
        return ""


def verbose_tool(chars: int) -> BaseAction:
    """A LintVerbose whose description serialises to exactly ``chars`` characters."""
    description: dict[str, Any] = {"name": "LintVerbose", "description": "", "parameters": [], "required": []}
    description["description"] = "a" * (chars - len(json.dumps(description)))
    return LintVerbose(description=description, parser=BaseParser)


@pytest.mark.parametrize(
    ("chars", "expected"),
    [
        pytest.param(2000, [], id="500-tokens-is-fine"),
        pytest.param(
            2001,
            [
                (
                    "warning",
                    "LintVerbose",
                    "the description is about 501 tokens, over 500; every prompt offering this API "
                    "carries it, so shorten the docstrings",
                )
            ],
            id="501-tokens-is-large",
        ),
    ],
)
def test_description_over_500_tokens_is_a_warning(chars: int, expected: list[tuple[str, str, str]]) -> None:
    findings = lint_action(verbose_tool(chars))
    assert of_code(findings, "large-description") == expected
    assert [f.code for f in findings][-1] == "size"


# -- no-api ---------------------------------------------------------------------------------


class LintNothingToCall(BaseAction):
    """A tool without run or APIs."""


def test_tool_with_nothing_to_call_is_an_error() -> None:
    assert lint_action(LintNothingToCall()) == [
        LintFinding(
            "error",
            "LintNothingToCall",
            "LintNothingToCall",
            "no-api",
            "the tool has nothing a model can call; define run (a simple tool) or @tool_api methods (a toolkit)",
        )
    ]


# -- several findings at once ----------------------------------------------------------------


class LintManyProblems(BaseAction):
    __tool_name__ = "lint.many"

    def run(self, a, b: int) -> str:  # type: ignore[no-untyped-def]
        return ""


def test_findings_of_one_api_come_in_a_fixed_order() -> None:
    findings = lint_actions([LintManyProblems(), LintCleanEcho()])
    assert [(f.severity, f.tool, f.api, f.code) for f in findings] == [
        ("error", "lint.many", "lint.many", "no-description"),
        ("warning", "lint.many", "lint.many", "param-no-description"),
        ("warning", "lint.many", "lint.many", "default-string-type"),
        ("warning", "lint.many", "lint.many", "param-no-description"),
        ("warning", "lint.many", "lint.many", "illegal-name"),
        ("info", "lint.many", "lint.many", "size"),
        ("info", "LintCleanEcho", "LintCleanEcho", "size"),
    ]


def test_lint_actions_of_nothing_finds_nothing() -> None:
    assert lint_actions([]) == []


# -- lint_targets: modules ------------------------------------------------------------------

TOOLS_SOURCE = '''
from lagent_like import BaseAction, FinishAction, tool_api


class LintModBase(BaseAction, register=False):
    """An abstract base: no APIs, not registered, so not linted."""


class LintModCalc(LintModBase):
    """Integer arithmetic."""

    @tool_api
    def add(self, a: int, b) -> int:
        """Add two integers.

        Args:
            a: the first addend
        """
        return a + b


class LintModKeyed(BaseAction):
    def __init__(self, key: str) -> None:
        super().__init__()
        self.key = key

    def run(self, query: str) -> str:
        return query
'''


def test_module_target_lints_the_tool_classes_it_defines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = write_module(tmp_path, monkeypatch, TOOLS_SOURCE)
    findings = lint_targets([module])
    with pytest.raises(TypeError) as failure:  # the wording of the TypeError varies by Python version
        __import__(module).LintModKeyed()
    assert [f.api for f in findings if f.code == "size"] == ["LintModCalc.add", "LintModKeyed"]
    assert without_size(findings) == [
        LintFinding(
            "warning",
            "LintModCalc",
            "LintModCalc.add",
            "param-no-description",
            "parameter 'b' has no description; document it under Args: in the docstring "
            "(or annotate it Annotated[T, 'description'])",
        ),
        LintFinding(
            "warning",
            "LintModCalc",
            "LintModCalc.add",
            "default-string-type",
            "parameter 'b' has no type annotation and no docstring type, so it is described as STRING "
            "and its values are not checked; annotate it",
        ),
        LintFinding(
            "info",
            "LintModKeyed",
            "LintModKeyed",
            "not-instantiated",
            f"linted from the class description because LintModKeyed() failed (TypeError: {failure.value}); "
            "the parser's parameter_description is not counted in the size",
        ),
        LintFinding(
            "error",
            "LintModKeyed",
            "LintModKeyed",
            "no-description",
            "no description: the model is not told what this API does; add a docstring to run or to the class",
        ),
        LintFinding(
            "warning",
            "LintModKeyed",
            "LintModKeyed",
            "param-no-description",
            "parameter 'query' has no description; document it under Args: in the docstring "
            "(or annotate it Annotated[T, 'description'])",
        ),
    ]


def test_class_that_cannot_be_instantiated_is_sized_from_its_class_description(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = write_module(tmp_path, monkeypatch, TOOLS_SOURCE)
    findings = lint_targets([module])
    keyed = __import__(module).LintModKeyed
    assert of_code(findings, "size")[-1] == ("info", "LintModKeyed", size_message(keyed.__tool_description__))


@pytest.mark.parametrize(
    ("source", "api", "message"),
    [
        pytest.param(
            '''
            from lagent_like import BaseAction


            class LintModFine(BaseAction):
                def run(self) -> str:
                    """Defined before the broken class, still not linted."""
                    return ""


            class LintModBadDoc(BaseAction):
                def run(self, x: int, /) -> int:
                    """Double.

                    Args:
                        x: a number
                    """
                    return 2 * x
            ''',
            "LintModBadDoc.run",
            "parameter 'x' is positional-only; tools receive keyword arguments",
            id="positional-only-parameter",
        ),
        pytest.param(
            '''
            from lagent_like import BaseAction, tool_api


            class LintModBoth(BaseAction):
                def run(self) -> str:
                    """Run."""
                    return ""

                @tool_api
                def other(self) -> str:
                    """Other."""
                    return ""
            ''',
            "LintModBoth",
            "defines run and the tool APIs ['other']; a class is either a simple tool (one run method) "
            "or a toolkit (@tool_api methods), not both",
            id="run-and-tool-apis",
        ),
    ],
)
def test_definition_error_while_importing_a_module_is_an_error_finding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str, api: str, message: str
) -> None:
    module = write_module(tmp_path, monkeypatch, source)
    assert lint_targets([module]) == [
        LintFinding(
            "error",
            module,
            api,
            "definition-error",
            f"{message} (module {module!r} cannot be imported, so none of its tools is linted)",
        )
    ]


def test_registry_clash_while_importing_a_module_is_a_definition_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = '''
    from lagent_like import BaseAction


    class LintModImpostor(BaseAction):
        __tool_name__ = "FinishAction"

        def run(self) -> str:
            """Claims a built-in's name."""
            return ""
    '''
    module = write_module(tmp_path, monkeypatch, source)
    [finding] = lint_targets([module])
    assert (finding.severity, finding.tool, finding.api, finding.code) == (
        "error",
        module,
        module,
        "definition-error",
    )
    assert finding.message.startswith("tool name 'FinishAction' is already registered by ")
    assert finding.message.endswith(f"(module {module!r} cannot be imported, so none of its tools is linted)")


class LintEmptyName(BaseAction):
    def __init__(self) -> None:
        super().__init__(description={"name": ""})

    def run(self) -> str:
        """Its constructor gives an unusable description."""
        return ""


def test_constructor_raising_a_definition_error_is_an_error_and_the_class_is_linted() -> None:
    findings = lint_targets(["LintEmptyName"])
    assert without_size(findings) == [
        LintFinding(
            "error",
            "LintEmptyName",
            "LintEmptyName",
            "definition-error",
            "a description needs a non-empty 'name', got {'name': ''}",
        ),
        LintFinding(
            "info",
            "LintEmptyName",
            "LintEmptyName",
            "not-instantiated",
            "linted from the class description because LintEmptyName() failed (ToolDefinitionError: "
            "LintEmptyName: a description needs a non-empty 'name', got {'name': ''}); "
            "the parser's parameter_description is not counted in the size",
        ),
    ]
    assert of_code(findings, "size") == [
        ("info", "LintEmptyName", size_message(LintEmptyName.__tool_description__))
    ]


def test_module_without_tools_is_a_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module = write_module(tmp_path, monkeypatch, "from lagent_like import FinishAction\nVALUE = 1\n")
    assert lint_targets([module]) == [
        LintFinding(
            "warning",
            module,
            module,
            "no-tools",
            f"module {module!r} defines no BaseAction subclass and no function, so there is nothing to lint",
        )
    ]


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        pytest.param("raise RuntimeError('no config')\n", "RuntimeError: no config", id="module-raises"),
        pytest.param(
            "import no_such_dependency_for_lint\n",
            "ModuleNotFoundError: No module named 'no_such_dependency_for_lint'",
            id="missing-dependency",
        ),
    ],
)
def test_module_failing_to_import_otherwise_raises_import_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str, reason: str
) -> None:
    module = write_module(tmp_path, monkeypatch, source)
    with pytest.raises(ImportError) as info:
        lint_targets([module])
    assert str(info.value) == f"cannot import module {module!r}: {reason}"


# -- lint_targets: tool names and the registry ----------------------------------------------


class LintRegisteredZebra(BaseAction):
    def run(self, stripes) -> str:  # type: ignore[no-untyped-def]
        """Count stripes.

        Args:
            stripes: the stripes
        """
        return str(stripes)


def test_registered_tool_name_target_lints_that_tool() -> None:
    assert lint_targets(["LintRegisteredZebra"]) == lint_action(LintRegisteredZebra())


def test_tool_named_twice_is_linted_once() -> None:
    assert lint_targets(["LintRegisteredZebra", "LintRegisteredZebra"]) == lint_action(LintRegisteredZebra())


@pytest.mark.parametrize(
    ("target", "message"),
    [
        pytest.param(
            "LintRegisteredZebr",
            "no tool named 'LintRegisteredZebr' in the registry, and no module has that name; "
            "did you mean 'LintRegisteredZebra'?",
            id="close-to-a-tool-name",
        ),
        pytest.param(
            "no_such_package_for_lint.tools",
            "no tool named 'no_such_package_for_lint.tools' in the registry, and no module has that name",
            id="missing-parent-package",
        ),
    ],
)
def test_unknown_target_raises_tool_not_found_with_suggestions(target: str, message: str) -> None:
    with pytest.raises(ToolNotFoundError) as info:
        lint_targets([target])
    assert str(info.value) == message


def test_no_targets_lints_every_registered_tool_but_the_builtins() -> None:
    findings = lint_targets([])
    tools = {f.tool for f in findings}
    assert "LintRegisteredZebra" in tools
    assert not tools & BUILTINS
    zebra = [f for f in findings if f.tool == "LintRegisteredZebra"]
    assert zebra == lint_action(LintRegisteredZebra())


# -- LintFinding and format_findings --------------------------------------------------------


def test_finding_is_a_dataclass_with_documented_fields_in_order() -> None:
    finding = LintFinding("warning", "Tool", "Tool.api", "param-no-description", "fix it")
    assert dataclasses.asdict(finding) == {
        "severity": "warning",
        "tool": "Tool",
        "api": "Tool.api",
        "code": "param-no-description",
        "message": "fix it",
    }
    assert list(dataclasses.asdict(finding)) == ["severity", "tool", "api", "code", "message"]


ERROR = LintFinding("error", "Calc", "Calc.add", "no-description", "no description")
WARNING = LintFinding("warning", "Echo", "Echo", "param-no-description", "parameter 'x'")
INFO = LintFinding("info", "Echo", "Echo", "size", "about 9 tokens")


@pytest.mark.parametrize(
    ("findings", "text"),
    [
        pytest.param([], "0 errors, 0 warnings", id="nothing"),
        pytest.param(
            [ERROR, WARNING, INFO],
            "error Calc.add: no description [no-description]\n"
            "warning Echo: parameter 'x' [param-no-description]\n"
            "info Echo: about 9 tokens [size]\n"
            "1 error, 1 warning",
            id="one-of-each",
        ),
        pytest.param(
            [ERROR, ERROR, WARNING, WARNING, WARNING],
            "\n".join(
                ["error Calc.add: no description [no-description]"] * 2
                + ["warning Echo: parameter 'x' [param-no-description]"] * 3
                + ["2 errors, 3 warnings"]
            ),
            id="plurals",
        ),
        pytest.param(
            [INFO], "info Echo: about 9 tokens [size]\n0 errors, 0 warnings", id="infos-not-counted"
        ),
    ],
)
def test_format_findings_prints_one_line_each_and_a_summary(findings: list[LintFinding], text: str) -> None:
    assert format_findings(findings) == text


def test_format_findings_accepts_any_iterable() -> None:
    assert format_findings(iter([WARNING])) == format_findings([WARNING])
