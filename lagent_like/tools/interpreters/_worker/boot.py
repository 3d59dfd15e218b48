"""The first code a worker runs: set ``sys.path``, import the worker module, call its ``main``.

Its text is handed to ``python -I -S -c``; ``argv[1]`` is the directory holding this
package, ``argv[2]`` the module name, ``argv[3]`` the JSON configuration. ``-S`` skips
the ``site`` module (a third of the start-up time): the configuration's ``sys_path``
lists the parent's package directories instead (``.pth`` files are not run).
"""

import importlib
import json
import sys

config = json.loads(sys.argv[3])
sys.path.extend(path for path in config["sys_path"] if path not in sys.path)
sys.path.append(sys.argv[1])
importlib.import_module("_worker." + sys.argv[2]).main(config)
