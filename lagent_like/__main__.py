"""``python -m lagent_like``: the ``lagent-like`` command without the console script.

Useful where the script is not on ``PATH`` (another interpreter, a bare checkout).
"""

from lagent_like.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
