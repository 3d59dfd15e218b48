"""A resumed result stays resumed in its trace file: a copy saved after the resume is refused.

``ReAct.resume`` marks the result it took up (``AgentResult.resumed``); the mark is part
of the saved trace, so the file written after the resume cannot run the approved calls
again, in this process or in another one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _agents import Mailer, resumed_elsewhere

from lagent_like.agents import AgentResult

ALREADY = (
    r"ReAct.resume: this result was resumed already and its approved calls ran; "
    r"go on with the result that resume\(\) returned"
)


def test_a_result_is_marked_resumed_once_resume_takes_it_up_and_the_continued_run_is_not() -> None:
    mailer = Mailer()
    paused = mailer.agent.run("mail bo")
    assert (paused.resumed, paused.to_dict()["resumed"]) == (False, False)
    paused.approve(paused.interruptions[0])
    done = mailer.agent.resume(paused)
    assert (paused.resumed, paused.to_dict()["resumed"]) == (True, True)
    assert (done.resumed, done.answer, mailer.sent) == (False, "mailed", ["bo@x.org"])


def test_a_file_saved_after_the_resume_is_refused_when_loaded_and_runs_nothing(tmp_path: Path) -> None:
    mailer = Mailer()
    paused = mailer.agent.run("mail bo")
    paused.approve(paused.interruptions[0])
    mailer.agent.resume(paused)
    paused.save(tmp_path / "after.json")
    loaded = AgentResult.load(tmp_path / "after.json")
    assert loaded.resumed is True
    with pytest.raises(ValueError, match=ALREADY):
        mailer.agent.resume(loaded)
    assert mailer.sent == ["bo@x.org"]


#: Run after ``MAILER_PRELUDE`` (its ``send_email`` and ``sent``) on the saved result.
RESUME_SCRIPT = """

    executor = ActionExecutor([send_email])
    executor.register_hook(ApprovalHook(lambda name, args: name == "send_email"))
    agent = ReAct(lambda messages: "Final Answer: done", executor, name="mailer")
    result = AgentResult.load(sys.argv[1])
    try:
        agent.resume(result)
    except ValueError as exc:
        print(json.dumps([result.resumed, str(exc), sent]))
    else:
        print(json.dumps([result.resumed, None, sent]))
    """


def test_a_file_saved_after_the_resume_is_refused_in_another_process(tmp_path: Path) -> None:
    mailer = Mailer()
    paused = mailer.agent.run("mail bo")
    paused.approve(paused.interruptions[0])
    mailer.agent.resume(paused)
    assert resumed_elsewhere(paused, RESUME_SCRIPT, tmp_path) == [
        True,
        "ReAct.resume: this result was resumed already and its approved calls ran; "
        "go on with the result that resume() returned",
        [],
    ]


def test_an_approved_file_not_yet_resumed_is_resumed_in_another_process(tmp_path: Path) -> None:
    # The control for the test above: the same script goes on with a file not resumed.
    paused = Mailer().agent.run("mail bo")
    paused.approve(paused.interruptions[0])
    assert resumed_elsewhere(paused, RESUME_SCRIPT, tmp_path) == [True, None, ["bo@x.org"]]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        pytest.param("yes", r"trace: 'resumed' must be true or false, got 'yes'", id="string"),
        pytest.param(1, r"trace: 'resumed' must be true or false, got 1", id="number"),
        pytest.param(None, r"trace: 'resumed' must be true or false, got None", id="null"),
    ],
)
def test_a_hand_edited_resumed_mark_that_is_not_a_boolean_is_refused_on_load(
    value: Any, message: str, tmp_path: Path
) -> None:
    paused = Mailer().agent.run("mail bo")
    data = paused.to_dict()
    data["resumed"] = value
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        AgentResult.load(path)


def test_a_trace_written_before_the_mark_existed_loads_as_not_resumed() -> None:
    paused = Mailer().agent.run("mail bo")
    data = paused.to_dict()
    del data["resumed"]
    assert AgentResult.from_dict(data).resumed is False
