"""Test helpers (oracle, random theories, brute force) live beside the tests."""

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

# Lark's parser cache (and any other per-user cache) goes to a folder of the test run, not
# to the user's home.
_CACHE = tempfile.mkdtemp(prefix="argc-test-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE
atexit.register(shutil.rmtree, _CACHE, True)


def pytest_collection_modifyitems(config, items):
    """Tests marked `slow` (full-scale checks) run only when ARGC_SLOW=1 is set."""
    if os.environ.get("ARGC_SLOW"):
        return
    skip = pytest.mark.skip(reason="full scale: set ARGC_SLOW=1")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture()
def misbehaving(tmp_path):
    """The task file of `misbehaving_tasks.py`, written to the test's folder, and an instance
    of its task `endless`."""
    from misbehaving_tasks import endless, write_task_file

    return write_task_file(tmp_path), endless(0)


@pytest.fixture(scope="session")
def ray():
    """One local Ray instance for the test session (starting one takes seconds; a second one
    started in the same process after the first has shut down can hang), which writes only
    to a temporary folder: its session files (otherwise under /tmp/ray) and its home, where a
    new local instance keeps the authentication token it generates (`~/.ray/auth_token`)."""
    ray = pytest.importorskip("ray")
    # mkdtemp, not tmp_path_factory: Ray's socket paths under the folder must stay short.
    folder = Path(tempfile.mkdtemp(prefix="argc-ray-"))
    with pytest.MonkeyPatch.context() as patch:  # HOME only while the instance starts
        patch.setenv("HOME", str(folder / "home"))
        ray.init(
            num_cpus=2,
            include_dashboard=False,
            log_to_driver=False,
            object_store_memory=100 << 20,
            _temp_dir=str(folder / "tmp"),
        )
    try:
        yield ray
    finally:
        ray.shutdown()
        shutil.rmtree(folder, ignore_errors=True)
