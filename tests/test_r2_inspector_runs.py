"""A run list that survives a restart: a folder of trace files, listed, searchable, added to."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import test_web_browser as web_browser
from test_r2_inspector_catalogue import r2_weigh

from lagent_like import ActionExecutor
from lagent_like.agents import ReAct
from lagent_like.web import InspectorServer
from lagent_like.web.state import InspectorState

browser = web_browser.browser
page = web_browser.page
expect = web_browser.expect


def _save_run(path: Path, question: str, grams: int) -> None:
    replies = iter([f'Action: r2_weigh\nAction Input: {{"grams": {grams}}}', f"Final Answer: {grams} g"])
    ReAct(lambda messages: next(replies), ActionExecutor([r2_weigh])).run(question).save(path)


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    folder = tmp_path / "runs"
    folder.mkdir()
    _save_run(folder / "b.json", "Weigh the parcel", 900)
    _save_run(folder / "a.json", "Weigh the letter", 20)
    (folder / "notes.json").write_text(json.dumps({"not": "a trace"}))
    (folder / "readme.txt").write_text("not even JSON")
    return folder


def test_the_folders_trace_files_are_listed_by_name_with_their_question(
    runs: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="lagent_like"):
        state = InspectorState(ActionExecutor([r2_weigh]), runs_dir=str(runs))
    assert [(t["title"], t["turns"], t["stop_reason"]) for t in state.traces()] == [
        ("a.json: Weigh the letter", 2, "final_answer"),
        ("b.json: Weigh the parcel", 2, "final_answer"),
    ]
    (skipped,) = caplog.records
    assert skipped.getMessage().startswith(
        f"inspector: {runs / 'notes.json'} is not a trace file, not listed: "
    )


def test_a_runs_dir_that_is_not_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"runs_dir '.*missing' is not a directory; create it first"):
        InspectorState(ActionExecutor([r2_weigh]), runs_dir=str(tmp_path / "missing"))


def test_a_run_asked_on_the_page_is_saved_and_listed_after_a_restart(tmp_path: Path) -> None:
    replies = iter(['Action: r2_weigh\nAction Input: {"grams": 5}', "Final Answer: 5 g"])
    agent = ReAct(lambda messages: next(replies), ActionExecutor([r2_weigh]))
    state = InspectorState(agent.executor, agent=agent, runs_dir=str(tmp_path))
    trace_id = state.ask("How heavy is 5 g?")
    with state.changed:
        assert state.changed.wait_for(lambda: not state._traces[trace_id].running, timeout=30)
    (saved,) = tmp_path.glob("run-*-1.json")
    restarted = InspectorState(agent.executor, runs_dir=str(tmp_path))
    assert [(t["title"], t["stop_reason"]) for t in restarted.traces()] == [
        (f"{saved.name}: How heavy is 5 g?", "final_answer")
    ]
    assert restarted.trace("1")["answer"] == "5 g"


@pytest.fixture
def server(runs: Path) -> Iterator[InspectorServer]:
    with InspectorServer(ActionExecutor([r2_weigh]), runs_dir=str(runs)) as running:
        yield running


@pytest.mark.parametrize(
    ("query", "shown"),
    [
        pytest.param("", ["1. a.json: Weigh the letter", "2. b.json: Weigh the parcel"], id="everything"),
        pytest.param("parcel", ["2. b.json: Weigh the parcel"], id="by-question"),
        pytest.param("a.json", ["1. a.json: Weigh the letter"], id="by-file-name"),
        pytest.param(
            "weigh final_answer", ["1. a.json: Weigh the letter", "2. b.json: Weigh the parcel"], id="stop"
        ),
        pytest.param("letter parcel", [], id="every-word-must-match"),
    ],
)
def test_the_trace_list_is_searchable(
    page: Any, server: InspectorServer, query: str, shown: list[str]
) -> None:
    page.goto(server.url)
    page.get_by_role("tab", name="Traces").click()
    expect(page.locator("#trace-list button")).to_have_count(2)
    page.get_by_label("Search traces").fill(query)
    titles = page.locator("#trace-list button").evaluate_all(
        "(bs) => bs.map((b) => b.firstChild.textContent)"
    )
    assert titles == shown
    expect(page.locator("#trace-count")).to_have_text(f"{len(shown)} of 2 traces")
