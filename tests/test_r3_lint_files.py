"""``lagent-like lint path/to/file.py``: the tools a file defines, linted as ``-m file.py`` imports them.

A target holding a path separator or ending in ``.py`` is a file, imported by path
(the CLI's own helper for ``-m``); a file that cannot be imported is one error line
(exit 2, never a traceback), and what a ``DefinitionWarning`` says is reported once,
as a finding, not again on stderr.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

DOUBTFUL = '''
from lagent_like import BaseAction, tool_api


class R3LintDoubtful(BaseAction):
    """Say hello."""

    @tool_api
    def greet(self, name: str) -> str:
        """Greet someone.

        Args:
            name: who to greet.
            nobody: not a parameter.
        """
        return f"hello {name}"
'''

POSITIONAL = '''
from lagent_like import BaseAction


class R3LintPositional(BaseAction):
    """Broken on purpose."""

    def run(self, x: int, /) -> int:
        """Echo x.

        Args:
            x: a number.
        """
        return x
'''

FILES = {
    "tools/doubtful_r3.py": DOUBTFUL,
    "positional_r3.py": POSITIONAL,
    "syntax_r3.py": "def broken(:\n    pass\n",
    "constants_r3.py": "LIMIT = 3\n",
}

GREET_WARNING = (
    "warning R3LintDoubtful.greet: the docstring describes ['nobody'], which the signature does not have "
    "(left out); parameters are ['name']; fix the docstring [doubtful-definition]"
)
GREET_SIZE = (
    "info R3LintDoubtful.greet: the description is about 79 tokens (estimated as its JSON length / 4) [size]"
)


def lint(tmp_path: Path, *targets: str) -> subprocess.CompletedProcess[str]:
    """``python -m lagent_like lint TARGETS`` run in ``tmp_path``, which holds :data:`FILES`."""
    for name, text in FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "lagent_like", "lint", *targets],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=dict(os.environ),
        cwd=tmp_path,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("targets", "status", "stdout"),
    [
        pytest.param(
            ["tools/doubtful_r3.py"],
            0,
            f"{GREET_WARNING}\n{GREET_SIZE}\n0 errors, 1 warning\n",
            id="file-with-a-doubtful-docstring",
        ),
        pytest.param(
            ["tools.doubtful_r3"],
            0,
            f"{GREET_WARNING}\n{GREET_SIZE}\n0 errors, 1 warning\n",
            id="the-same-as-a-module-name",
        ),
        pytest.param(
            ["positional_r3.py"],
            1,
            "error R3LintPositional.run: parameter 'x' is positional-only; tools receive keyword arguments "
            "(module 'positional_r3.py' cannot be imported, so none of its tools is linted) "
            "[definition-error]\n1 error, 0 warnings\n",
            id="file-with-a-definition-error",
        ),
        pytest.param(
            ["constants_r3.py"],
            0,
            "warning constants_r3.py: module 'constants_r3.py' defines no BaseAction subclass and no "
            "function, so there is nothing to lint [no-tools]\n0 errors, 1 warning\n",
            id="file-with-no-tools",
        ),
    ],
)
def test_lint_reports_the_findings_of_a_file(
    tmp_path: Path, targets: list[str], status: int, stdout: str
) -> None:
    proc = lint(tmp_path, *targets)
    assert (proc.returncode, proc.stderr, proc.stdout) == (status, "", stdout)


@pytest.mark.parametrize(
    ("target", "message"),
    [
        pytest.param(
            "missing_r3.py",
            "cannot import module 'missing_r3.py': no such file '{tmp}/missing_r3.py'",
            id="missing-file",
        ),
        pytest.param(
            "tools/doubtful_r3",
            "cannot import module 'tools/doubtful_r3': no such file '{tmp}/tools/doubtful_r3'",
            id="a-path-without-py",
        ),
        pytest.param(
            "syntax_r3.py",
            "cannot import module 'syntax_r3.py': SyntaxError: invalid syntax (syntax_r3.py, line 1)",
            id="syntax-error",
        ),
    ],
)
def test_lint_of_a_file_that_cannot_be_imported_is_one_error_line(
    tmp_path: Path, target: str, message: str
) -> None:
    proc = lint(tmp_path, target)
    expected = message.format(tmp=tmp_path.resolve())
    assert (proc.returncode, proc.stdout, proc.stderr) == (2, "", f"lagent-like: error: {expected}\n")
