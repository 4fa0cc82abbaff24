"""The runner image's read-only npm cache seeds the pod's writable one: what it holds is
copied, never the seed folder's own mode and times onto the cache folder, which in a pod
is an emptyDir mount point the build's user does not own (setting its times raised
EPERM there and ended every framework app's build as our failure)."""

from __future__ import annotations

import os
import stat

from iwcbench.pipeline.stages.instrumenting import building


def test_the_seed_fills_the_cache_and_leaves_the_cache_folder_as_it_was(tmp_path):
    seed = tmp_path / "seed"
    (seed / "_cacache" / "index-v5").mkdir(parents=True)
    (seed / "_cacache" / "index-v5" / "ab").write_text("entry")
    (seed / "_update-notifier-last-checked").write_text("")
    os.utime(seed, (0, 0))
    seed.chmod(0o555)  # read-only, as in the image
    cache = tmp_path / "npm-cache"
    cache.mkdir(mode=0o777)
    cache.chmod(0o777)
    before = cache.stat()
    try:
        building._seed(cache, str(seed))
    finally:
        seed.chmod(0o755)
    assert (cache / "_cacache" / "index-v5" / "ab").read_text() == "entry"
    assert (cache / "_update-notifier-last-checked").is_file()
    after = cache.stat()
    assert stat.S_IMODE(after.st_mode) == 0o777 and after.st_mtime_ns != 0
    assert after.st_mtime_ns >= before.st_mtime_ns  # its times are not the seed's (0)


def test_a_cache_already_filled_is_left_alone(tmp_path):
    seed, cache = tmp_path / "seed", tmp_path / "cache"
    seed.mkdir()
    (seed / "new").write_text("x")
    cache.mkdir()
    (cache / "old").write_text("y")
    building._seed(cache, str(seed))
    assert sorted(p.name for p in cache.iterdir()) == ["old"]
