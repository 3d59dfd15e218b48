"""The first code a sandboxed worker runs: import the worker module and call its ``main``.

Its text is handed to ``python -I -c``; ``argv[1]`` is the directory holding this
package, ``argv[2]`` the module name, ``argv[3]`` the JSON configuration.
"""

import importlib
import json
import sys

sys.path.insert(0, sys.argv[1])
importlib.import_module("_worker." + sys.argv[2]).main(json.loads(sys.argv[3]))
