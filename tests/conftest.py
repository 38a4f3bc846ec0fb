"""Test helpers (oracle, random theories, brute force) live beside the tests."""

import atexit
import os
import shutil
import tempfile

# Lark's parser cache (and any other per-user cache) goes to a folder of the test run, not
# to the user's home.
_CACHE = tempfile.mkdtemp(prefix="argc-test-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE
atexit.register(shutil.rmtree, _CACHE, True)
