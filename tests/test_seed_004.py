"""The shipped tools reproduce the Lagent actions tutorial (seed 004) exactly."""

from __future__ import annotations

import json
import subprocess
import sys

from lagent_like import ActionExecutor, ArxivSearch, IPythonInterpreter, list_tools

PARAMETER_DESCRIPTION = "If you call this tool, you must pass arguments in the JSON format {key: value}, where the key is the parameter name."


#: The tutorial's ``list_tools()`` before its own ``Bold`` and ``PhraseEmphasis``.
TUTORIAL_TOOLS = [
    "BaseAction",
    "InvalidAction",
    "NoAction",
    "FinishAction",
    "ArxivSearch",
    "BINGMap",
    "GoogleScholar",
    "GoogleSearch",
    "IPythonInterpreter",
    "PPT",
    "PythonInterpreter",
]


def test_list_tools_in_a_fresh_process_starts_as_the_tutorials_list() -> None:
    code = "import json, lagent_like; print(json.dumps(lagent_like.list_tools()))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    names = json.loads(out.stdout)
    assert names[: len(TUTORIAL_TOOLS)] == TUTORIAL_TOOLS
    assert list_tools()[: len(TUTORIAL_TOOLS)] == TUTORIAL_TOOLS


def test_executor_actions_info_matches_the_tutorial() -> None:
    executor = ActionExecutor(actions=[ArxivSearch(), IPythonInterpreter()])
    assert executor.get_actions_info() == [
        {
            "name": "ArxivSearch.get_arxiv_article_information",
            "description": "Run Arxiv search and get the article meta information.",
            "parameters": [{"name": "query", "type": "STRING", "description": "the content of search query"}],
            "required": ["query"],
            "return_data": [
                {"name": "content", "description": "a list of 3 arxiv search papers", "type": "STRING"}
            ],
            "parameter_description": PARAMETER_DESCRIPTION,
        },
        {
            "name": "IPythonInterpreter",
            "description": "When you send a message containing Python code to python, it will be executed in a "
            "stateful Jupyter notebook environment. python will respond with the output of the execution or "
            "time out after 60.0 seconds. The drive at '/mnt/data' can be used to save and persist user files. "
            "Internet access for this session is disabled. Do not make external web requests or API calls as "
            "they will fail.",
            "parameters": [
                {"name": "command", "type": "STRING", "description": "Python code"},
                {
                    "name": "timeout",
                    "type": "NUMBER",
                    "description": "Upper bound of waiting time for Python script execution.",
                },
            ],
            "required": ["command"],
            "parameter_description": PARAMETER_DESCRIPTION,
        },
    ]


def test_executor_runs_the_tutorials_ipython_call() -> None:
    interpreter = IPythonInterpreter()
    try:
        executor = ActionExecutor(actions=[ArxivSearch(), interpreter])
        ret = executor("IPythonInterpreter", '{"command": "import math;math.sqrt(100)"}')
        assert ret.result == [{"type": "text", "content": "10.0"}]
    finally:
        interpreter.close()
