"""Where a framework build's minified bundle holds each source file's counters
(sites.js, builtSitesOf): the counter functions are renamed, two modules' counters
share one short name in different scopes, and each key gets only its own increments."""

from __future__ import annotations

import json
import subprocess

import pytest

from iwcbench.pipeline.kits import processes
from iwcbench.pipeline.stages import instrumenting

pytestmark = pytest.mark.node  # the real Node tools (hack/setup), no browser

# Two webpack-style modules, each with Istanbul's preamble renamed to `c` by a minifier.
BUNDLE = (
    '(()=>{var m={1:function(e){function c(){var e="src/a.js",n="h";return{s:{},f:{},b:{}}}'
    'c().s[0]++;e.x=function(){c().f[0]++;return c().b[0][1]++,1}},'
    '2:function(e){function c(){var e="src/b.js",n="h";return{s:{}}}c().s[0]++;c().s[1]++;}};'
    'var c=function(){};c().s[9]++;})();'
)


def test_each_key_gets_the_increments_bound_to_its_own_counter(tmp_path):
    (tmp_path / "main.js").write_text(BUNDLE)
    out = tmp_path / "sites.json"
    job = {"tools": str(processes.node_tools_dir()), "files": [str(tmp_path / "main.js")],
           "keys": ["src/a.js", "src/b.js", "src/missing.js"], "sites": str(out)}
    done = subprocess.run([processes.node_binary(), str(instrumenting.SITES_SCRIPT)], input=json.dumps(job).encode(),
                          capture_output=True, check=True)
    assert json.loads(done.stdout) == {"keys": 2}
    sites = json.loads(out.read_text())
    a, b = sites["src/a.js"], sites["src/b.js"]
    assert a["sha256"] == b["sha256"] and len(a["sha256"]) == 64
    assert a["s"] == {"0": [BUNDLE.index('c().s[0]++;e.x')]}
    assert a["f"] == {"0": [BUNDLE.index("c().f[0]")]}
    assert a["b"] == {"0": [[], [BUNDLE.index("c().b[0][1]")]]}
    second = BUNDLE.index('c().s[0]++;c().s[1]')
    assert b["s"] == {"0": [second], "1": [BUNDLE.index("c().s[1]")]}
    assert "src/missing.js" not in sites  # the outer `c().s[9]` belongs to no counter
