"""Test helpers (oracle, random theories, brute force) live beside the tests."""

import atexit
import os
import shutil
import tempfile

import pytest

# Lark's parser cache (and any other per-user cache) goes to a folder of the test run, not
# to the user's home.
_CACHE = tempfile.mkdtemp(prefix="argc-test-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE
atexit.register(shutil.rmtree, _CACHE, True)


@pytest.fixture()
def misbehaving(tmp_path):
    """The task file of `misbehaving_tasks.py`, written to the test's folder, and an instance
    of its task `endless`."""
    from misbehaving_tasks import endless, write_task_file

    return write_task_file(tmp_path), endless(0)
