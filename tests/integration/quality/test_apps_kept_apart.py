"""The quality tools' browsers are shared from app to app, and an app still cannot reach
what the app before it left in them: the second app, served at the same origin (the same
address and port), finds none of the first app's localStorage, cookies or IndexedDB
databases, in Firefox (the cross-browser load) or in Chromium (the desktop and phone
loads), while the same server and browsers answer both."""

from __future__ import annotations

import dataclasses
import pathlib
import shutil
import tempfile

import pytest

from iwcbench.pipeline.stages import serving
from iwcbench.pipeline.stages.quality import rendering, tooling

pytestmark = pytest.mark.browser

# What the page finds when it loads, then what it leaves behind (read back, so that a
# write that silently failed cannot pass for isolation).
PAGE = """<!doctype html><title>kept apart</title><script>
const names = async () => (await indexedDB.databases()).map((d) => d.name).sort();
window.seen = (async () => {
  const found = { mark: localStorage.getItem('mark'), cookie: document.cookie, databases: await names() };
  localStorage.setItem('mark', 'left by an earlier app');
  document.cookie = 'left=1; max-age=3600';
  await new Promise((resolve, reject) => {
    const opening = indexedDB.open('left', 1);
    opening.onupgradeneeded = () => opening.result.createObjectStore('kept');
    opening.onsuccess = () => { opening.result.close(); resolve(); };
    opening.onerror = () => reject(opening.error);
  });
  return { found, left: { mark: localStorage.getItem('mark'), cookie: document.cookie, databases: await names() } };
})();
</script>"""
NOTHING = {"mark": None, "cookie": "", "databases": []}
LEFT = {"mark": "left by an earlier app", "cookie": "left=1", "databases": ["left"]}


@pytest.fixture()
def app_url():
    folder = pathlib.Path(tempfile.mkdtemp(prefix="iwc-apart-", dir="/tmp"))
    (folder / "index.html").write_text(PAGE)
    with serving.serve(folder) as served:
        yield served.url
    shutil.rmtree(folder, ignore_errors=True)


def _seeing(job: tooling.Job | tooling.ToolFailure) -> tooling.Job:
    """The job with the page's own record as its probe (the promise is awaited)."""
    assert isinstance(job, tooling.Job), job
    return dataclasses.replace(job, fields={**job.fields, "probe": "window.seen"})


def test_an_app_finds_nothing_the_app_before_it_left_in_the_shared_browsers(app_url):
    if tooling.firefox_path() is None:
        pytest.skip("Firefox ESR is not installed (hack/setup installs it)")
    origin = app_url.rstrip("/")
    servers = set()
    with tooling.Tools() as tools:
        for app in ("the first app", "the second app"):
            tools.admit(origin)
            answers = tools.together([
                _seeing(tooling.firefox_job(app_url, origin, {}, *rendering.DESKTOP, 30)),
                _seeing(rendering.desktop_job(app_url, origin, {}, 30)),
                _seeing(rendering.phone_job(app_url, origin, {}, 20, 30))])
            for engine, answer in zip(("Firefox", "Chromium desktop", "Chromium phone"), answers):
                assert isinstance(answer, dict) and not answer.get("error"), (app, engine, answer)
                assert answer["probe"] == {"found": NOTHING, "left": LEFT}, (app, engine, answer["probe"])
            servers.add(tools._server.service.pid if tools._server else None)
            tools.app_done()
        assert len(servers) == 1 and None not in servers, "both apps should have met the same running server"
