"""The shipped tools reproduce the Lagent actions tutorial (seed 004) exactly."""

from __future__ import annotations

from lagent_like import ActionExecutor, ArxivSearch, IPythonInterpreter, list_tools

PARAMETER_DESCRIPTION = "If you call this tool, you must pass arguments in the JSON format {key: value}, where the key is the parameter name."


def test_list_tools_starts_with_the_builtins_then_the_shipped_tools() -> None:
    assert list_tools()[:8] == [
        "BaseAction",
        "InvalidAction",
        "NoAction",
        "FinishAction",
        "ArxivSearch",
        "GoogleSearch",
        "IPythonInterpreter",
        "PythonInterpreter",
    ]


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
