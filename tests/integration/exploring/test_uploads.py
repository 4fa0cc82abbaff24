"""A file input, in real Chromium, even one hidden behind the app's own button, is
offered as an upload; the file the explorer sets on it is one the input accepts and
the app's change handler reads it (FileReader), as it would a file a person picked."""

from __future__ import annotations

import base64

import pytest

from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.kits import browser
from iwcbench.pipeline.stages.exploring import acting, observing, uploads

pytestmark = pytest.mark.browser

PAGE = """<!doctype html><html><body>
<button id="import" onclick="document.getElementById('picker').click()">Import backup</button>
<input id="picker" type="file" accept=".json,application/json" style="display:none">
<input id="photo" type="file" accept="image/*">
<pre id="out"></pre>
<script>
document.getElementById('picker').addEventListener('change', (e) => {
  const reader = new FileReader();
  reader.onload = () => { document.getElementById('out').textContent = 'read ' + JSON.parse(reader.result).length; };
  reader.readAsText(e.target.files[0]);
});
</script>
</body></html>"""


def test_a_hidden_file_input_gets_a_file_it_accepts_and_the_app_reads_it():
    with browser.Session(browser.ContextOptions()) as session:
        tab = session.new_tab()
        tab.goto("data:text/html;base64," + base64.b64encode(PAGE.encode()).decode(), 20)
        seen = {c.selector: c for c in observing.observe(tab, 0, 20.0).candidates}
        assert seen["#picker"].kinds == ("upload",) and seen["#picker"].accept == ".json,application/json"
        assert "upload" in seen["#photo"].kinds
        assert uploads.names_for(seen["#photo"].accept) == ["photo.png"]
        name = uploads.names_for(seen["#picker"].accept)[0]
        assert name.endswith(".json")
        acting.perform(tab, evidence.Action(kind="upload", selector="#picker", value=name), 5.0, "about:blank")
        tab.page.wait_for_function("document.getElementById('out').textContent !== ''", timeout=5000)
        assert tab.page.inner_text("#out") == "read 2"
