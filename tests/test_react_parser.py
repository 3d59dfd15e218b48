"""``parse_react``: real-looking model replies, clean and broken, read into one step each."""

from __future__ import annotations

import time

import pytest

from lagent_like.agents import ReActStep, parse_react

NO_ACTION = "Your reply has neither an `Action:` nor a `Final Answer:`."
EMPTY_ACTION = "`Action:` is empty; it must name one of the tools."
INPUT_WITHOUT_ACTION = "Your reply has an `Action Input:` but no `Action:` naming the tool."
EMPTY_ANSWER = "`Final Answer:` is empty."


def action(name: str, arguments: str, thought: str | None, text: str) -> ReActStep:
    return ReActStep("action", thought, name, arguments, None, None, text)


CLEAN = 'Thought: I need the sum.\nAction: Calc.add\nAction Input: {"a": 17, "b": 25}'
HALLUCINATED = CLEAN + "\nObservation: 42\nThought: I now know the final answer\nFinal Answer: 42"
FENCED = (
    "Thought: First the primes.\nAction: IPythonInterpreter\nAction Input: ```json\n"
    "{'command': 'primes = [2, 3, 5]',}\n```\nObservation: [2, 3, 5]"
)
CODE_FENCE = "Action: PythonInterpreter\nAction Input:\n```python\ndef solution():\n    return 1\n```\n"
WRAPPED = "```\nThought: wrap\nAction: Calc.pi\nAction Input: {}\n```"
KEY_IN_JSON = 'Action: Notes.write\nAction Input: {"text": "line one\nThought: not a key\nline three"}'


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(CLEAN, action("Calc.add", '{"a": 17, "b": 25}', "I need the sum.", CLEAN), id="clean"),
        pytest.param(
            HALLUCINATED,
            action("Calc.add", '{"a": 17, "b": 25}', "I need the sum.", CLEAN),
            id="made-up-observation-and-answer-cut",
        ),
        pytest.param(
            'thought: lower\naction: Calc.add\naction input: {"a": 1, "b": 2}',
            action(
                "Calc.add", '{"a": 1, "b": 2}', "lower", 'thought: lower\naction: Calc.add\naction input: {"a": 1, "b": 2}'
            ),
            id="lower-case-keys",
        ),
        pytest.param(
            'THOUGHT :  spaced\nACTION :   Calc.add  \nACTION INPUT :  {"a": 1}',
            action("Calc.add", '{"a": 1}', "spaced", 'THOUGHT :  spaced\nACTION :   Calc.add  \nACTION INPUT :  {"a": 1}'),
            id="upper-case-and-extra-spaces",
        ),
        pytest.param(
            'Action: Calc.add\nAction Input: {"a": 1}',
            action("Calc.add", '{"a": 1}', None, 'Action: Calc.add\nAction Input: {"a": 1}'),
            id="no-thought",
        ),
        pytest.param(
            'I should add them.\nAction: Calc.add\nAction Input: {"a": 1}',
            action("Calc.add", '{"a": 1}', "I should add them.", 'I should add them.\nAction: Calc.add\nAction Input: {"a": 1}'),
            id="preamble-is-the-thought",
        ),
        pytest.param(
            FENCED,
            action(
                "IPythonInterpreter",
                "{'command': 'primes = [2, 3, 5]',}",
                "First the primes.",
                FENCED[: FENCED.index("\nObservation")],
            ),
            id="json-fence-then-observation",
        ),
        pytest.param(
            CODE_FENCE,
            action("PythonInterpreter", "def solution():\n    return 1", None, CODE_FENCE.rstrip()),
            id="python-fence-on-next-line",
        ),
        pytest.param(
            'Action: Calc.add\nAction Input: {"a": 1, "b": {"c": [1, 2]}} and then I will check the result.',
            action(
                "Calc.add",
                '{"a": 1, "b": {"c": [1, 2]}}',
                None,
                'Action: Calc.add\nAction Input: {"a": 1, "b": {"c": [1, 2]}} and then I will check the result.',
            ),
            id="json-then-chatter",
        ),
        pytest.param(
            'Action: Calc.echo\nAction Input: {"s": "a } in a string"} ok',
            action("Calc.echo", '{"s": "a } in a string"}', None, 'Action: Calc.echo\nAction Input: {"s": "a } in a string"} ok'),
            id="bracket-inside-a-string",
        ),
        pytest.param(
            KEY_IN_JSON,
            action("Notes.write", '{"text": "line one\nThought: not a key\nline three"}', None, KEY_IN_JSON),
            id="key-like-line-inside-json",
        ),
        pytest.param(
            "Action: Search\nAction Input: weather in Paris\nObservation: sunny",
            action("Search", "weather in Paris", None, "Action: Search\nAction Input: weather in Paris"),
            id="bare-input",
        ),
        pytest.param(
            'Action: `Calc.add`\nAction Input: `{"a": 1}`',
            action("Calc.add", '{"a": 1}', None, 'Action: `Calc.add`\nAction Input: `{"a": 1}`'),
            id="backticks",
        ),
        pytest.param(
            'Action: "Calc.add".\nAction Input: {"a": 1}',
            action("Calc.add", '{"a": 1}', None, 'Action: "Calc.add".\nAction Input: {"a": 1}'),
            id="quoted-name-with-period",
        ),
        pytest.param(
            '**Thought:** bold\n**Action:** Calc.add\n**Action Input:** {"a": 1}',
            action("Calc.add", '{"a": 1}', "bold", '**Thought:** bold\n**Action:** Calc.add\n**Action Input:** {"a": 1}'),
            id="markdown-bold",
        ),
        pytest.param(
            'Thought: one line. Action: Calc.add Action Input: {"a": 1}',
            action("Calc.add", '{"a": 1}', "one line.", 'Thought: one line. Action: Calc.add Action Input: {"a": 1}'),
            id="keys-inside-one-line",
        ),
        pytest.param(
            'Action 1: Calc.add\nAction Input 1: {"a": 1}',
            action("Calc.add", '{"a": 1}', None, 'Action 1: Calc.add\nAction Input 1: {"a": 1}'),
            id="numbered-keys",
        ),
        pytest.param(
            'Action: Calc.add\nAction_Input: {"a": 1}',
            action("Calc.add", '{"a": 1}', None, 'Action: Calc.add\nAction_Input: {"a": 1}'),
            id="underscored-key",
        ),
        pytest.param(
            'Action: Calc.add(a=1, b="two")',
            action("Calc.add", '{"a": 1, "b": "two"}', None, 'Action: Calc.add(a=1, b="two")'),
            id="call-style-keywords",
        ),
        pytest.param(
            "Action: PythonInterpreter('print(1)')",
            action("PythonInterpreter", "print(1)", None, "Action: PythonInterpreter('print(1)')"),
            id="call-style-one-literal",
        ),
        pytest.param(
            'Action: Calc.add()\nAction Input: {"a": 1}',
            action("Calc.add", '{"a": 1}', None, 'Action: Calc.add()\nAction Input: {"a": 1}'),
            id="call-style-with-action-input",
        ),
        pytest.param(
            "Action: Calc.add(1, 2)",
            ReActStep(
                "parse_error",
                None,
                "Calc.add",
                "",
                None,
                "The arguments in `Action: ...(1, 2)` are not literal name=value pairs; "
                "give them in `Action Input:` instead.",
                "Action: Calc.add(1, 2)",
            ),
            id="call-style-positional-is-an-error",
        ),
        pytest.param(
            "Action: Calc.add(a=os.system('ls'))",
            ReActStep(
                "parse_error",
                None,
                "Calc.add",
                "",
                None,
                "The arguments in `Action: ...(a=os.system('ls'))` are not literal name=value pairs; "
                "give them in `Action Input:` instead.",
                "Action: Calc.add(a=os.system('ls'))",
            ),
            id="call-style-never-evaluates",
        ),
        pytest.param(
            "Action: Calc.sum(" + "1, " * 40 + "2)",
            ReActStep(
                "parse_error",
                None,
                "Calc.sum",
                "",
                None,
                "The arguments in `Action: ...(" + ("1, " * 40)[:77] + "...)` are not literal name=value pairs; "
                "give them in `Action Input:` instead.",
                "Action: Calc.sum(" + "1, " * 40 + "2)",
            ),
            id="call-style-error-quotes-at-most-80-characters",
        ),
        pytest.param(
            'Action: Calc.add\n{"a": 1, "b": 2}',
            action("Calc.add", '{"a": 1, "b": 2}', None, 'Action: Calc.add\n{"a": 1, "b": 2}'),
            id="input-without-its-key",
        ),
        pytest.param(
            "Action: Calc.pi",
            action("Calc.pi", "", None, "Action: Calc.pi"),
            id="no-input-at-all",
        ),
        pytest.param(
            'Action: Calc.add\nAction: Calc.mul\nAction Input: {"a": 2}\nAction: Calc.add\nAction Input: {"a": 3}',
            action(
                "Calc.mul",
                '{"a": 2}',
                None,
                'Action: Calc.add\nAction: Calc.mul\nAction Input: {"a": 2}\nAction: Calc.add\nAction Input: {"a": 3}',
            ),
            id="first-complete-action-block",
        ),
        pytest.param(
            WRAPPED,
            action("Calc.pi", "{}", "wrap", WRAPPED),
            id="whole-reply-in-a-fence",
        ),
        pytest.param(
            "Thought: I now know the final answer\nFinal Answer: 42",
            ReActStep(
                "final_answer", "I now know the final answer", None, None, "42", None,
                "Thought: I now know the final answer\nFinal Answer: 42",
            ),
            id="final-answer",
        ),
        pytest.param(
            "final answer: Paris is the capital.\nIt has about 2.1 million people.",
            ReActStep(
                "final_answer", None, None, None, "Paris is the capital.\nIt has about 2.1 million people.", None,
                "final answer: Paris is the capital.\nIt has about 2.1 million people.",
            ),
            id="multi-line-final-answer",
        ),
        pytest.param(
            'Thought: known\nFinal Answer: 42\nAction: Calc.add\nAction Input: {"a": 1}',
            ReActStep(
                "final_answer", "known", None, None, "42", None,
                'Thought: known\nFinal Answer: 42\nAction: Calc.add\nAction Input: {"a": 1}',
            ),
            id="answer-before-action-wins",
        ),
        pytest.param(
            'Action: Calc.add\nAction Input: {"a": 1}\nFinal Answer: 42',
            action("Calc.add", '{"a": 1}', None, 'Action: Calc.add\nAction Input: {"a": 1}\nFinal Answer: 42'),
            id="action-before-answer-wins",
        ),
        pytest.param(
            "The capital of France is Paris.",
            ReActStep("no_action", None, None, None, None, NO_ACTION, "The capital of France is Paris."),
            id="prose-only",
        ),
        pytest.param(
            "Thought: I am still thinking",
            ReActStep("no_action", "I am still thinking", None, None, None, NO_ACTION, "Thought: I am still thinking"),
            id="thought-only",
        ),
        pytest.param(
            "",
            ReActStep("no_action", None, None, None, None, NO_ACTION, ""),
            id="empty-reply",
        ),
        pytest.param(
            'Thought: go\nAction:\nAction Input: {"a": 1}',
            ReActStep("parse_error", "go", None, '{"a": 1}', None, EMPTY_ACTION, 'Thought: go\nAction:\nAction Input: {"a": 1}'),
            id="empty-action-name",
        ),
        pytest.param(
            "Action: ``\nAction Input: {}",
            ReActStep("parse_error", None, None, "{}", None, EMPTY_ACTION, "Action: ``\nAction Input: {}"),
            id="action-name-only-backticks",
        ),
        pytest.param(
            'Action Input: {"a": 1}',
            ReActStep("parse_error", None, None, None, None, INPUT_WITHOUT_ACTION, 'Action Input: {"a": 1}'),
            id="input-without-action",
        ),
        pytest.param(
            "Thought: done\nFinal Answer:   ",
            ReActStep("parse_error", "done", None, None, None, EMPTY_ANSWER, "Thought: done\nFinal Answer:"),
            id="empty-final-answer",
        ),
        pytest.param(
            'Action: Calc.add\nAction Input: {"a": 1, "b": ',
            action("Calc.add", '{"a": 1, "b":', None, 'Action: Calc.add\nAction Input: {"a": 1, "b":'),
            id="cut-off-json-kept-for-the-tool-to-refuse",
        ),
        pytest.param(
            "Thought: the action: is to add\nAction: Calc.add\nAction Input: {}",
            action("Calc.add", "{}", "the action: is to add", "Thought: the action: is to add\nAction: Calc.add\nAction Input: {}"),
            id="lower-case-key-word-inside-a-line-is-text",
        ),
    ],
)  # fmt: skip
def test_parse_react_reads_one_step(text: str, expected: ReActStep) -> None:
    assert parse_react(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("Action: " + "(" * 5000, id="deep-parentheses"),
        pytest.param("Action: f(" + "[" * 5000 + ")", id="deep-brackets-in-a-call"),
        pytest.param("Action Input: " + "{" * 20000, id="unclosed-braces"),
        pytest.param("```" * 3000, id="fences"),
        pytest.param("Action: x\nAction Input: ```json\n{", id="unclosed-fence"),
        pytest.param("\x00Action:\x00\nFinal Answer:\x00", id="nul-bytes"),
    ],
)
def test_parse_react_never_raises_on_hostile_text(text: str) -> None:
    step = parse_react(text)
    assert step.outcome in ("action", "final_answer", "no_action", "parse_error")


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(" " * 200_000 + "x", id="long-blank-line"),
        pytest.param("Action" + " " * 200_000 + "x", id="key-then-long-blank"),
        pytest.param("Action: a\nAction Input: {\n" * 20_000, id="many-unclosed-inputs"),
        pytest.param("Action Input: ```\n" * 20_000, id="many-unclosed-fences"),
        pytest.param("x Action " * 50_000, id="many-inline-keys"),
    ],
)
def test_parse_react_takes_linear_time(text: str) -> None:
    # Each of these took minutes with backtracking or rescanning; linear is well under a second.
    # This thread's CPU time: other processes on a loaded machine do not count.
    started = time.thread_time()
    parse_react(text)
    assert time.thread_time() - started < 5.0
