"""The mirror against a fake npm registry on loopback: what it serves, that the second
answer needs no network, and what it refuses."""

from __future__ import annotations

import hashlib
import threading

import pytest

from fakes import npm_registry
from fakes.npm_registry import Package
from iwcbench.pipeline.kits.mirror import cdn, npm

JQUERY = Package("jquery", "3.7.1", {"dist/jquery.min.js": "window.jQuery = 1;", "dist/jquery.js": "x"},
                 {"main": "dist/jquery.js"})
LODASH = Package("lodash", "4.17.21", {"lodash.min.js": "window._ = 1;", "lodash.js": "x"}, {"main": "lodash.js"})
FA = Package("@fortawesome/fontawesome-free", "6.4.0", {
    "css/all.min.css": "@font-face{src:url(../webfonts/fa-solid-900.woff2)}",
    "webfonts/fa-solid-900.woff2": b"wOF2\x00\x01",
})
ANIMATE = Package("animate.css", "4.1.1", {"animate.css": ".a{}", "animate.min.css": ".a{}"},
                  {"main": "animate.css"})
REACT = Package("react", "18.3.1", {"index.js": "module.exports = require('./cjs/react.js');",
                                    "umd/react.production.min.js": "window.React = {};"}, {"main": "index.js"})
TAILWIND = Package("tailwindcss-cdn", "3.4.10", {
    "tailwindcss.js": "/*play*/", "tailwindcss-with-forms.js": "/*forms*/",
    "3.4.1/tailwindcss.js": "/*3.4.1*/", "tailwindcss-with-all-plugins.js": "/*all*/",
})
OLD_CHART = Package("chart.js", "3.9.1", {"dist/chart.min.js": "window.Chart = 3;"}, {"main": "dist/chart.js"})
PACKAGES = [npm_registry.CHART, npm_registry.KURKLE, npm_registry.THREE, OLD_CHART, JQUERY, LODASH, FA,
            ANIMATE, REACT, TAILWIND]


@pytest.fixture()
def registry():
    with npm_registry.running(PACKAGES) as reg:
        yield reg


@pytest.fixture()
def mirror(tmp_path, registry):
    return cdn.Mirror(tmp_path / "cdn", registry=registry.url)


def _body(mirror, url) -> str:
    hit = mirror.resolve(url)
    assert hit is not None, mirror.lookup(url)
    return hit.body.decode()


@pytest.mark.parametrize(("url", "body", "served"), [
    ("https://cdn.jsdelivr.net/npm/chart.js", "window.Chart = function Chart() {};", "chart.js@4.4.0/dist/chart.umd.js"),
    ("https://cdn.jsdelivr.net/npm/chart.js@3/dist/chart.min.js", "window.Chart = 3;", "chart.js@3.9.1/dist/chart.min.js"),
    ("https://unpkg.com/jquery@3.7.1/dist/jquery.min.js", "window.jQuery = 1;", "jquery@3.7.1/dist/jquery.min.js"),
    ("https://cdnjs.cloudflare.com/ajax/libs/jquery/3.7.1/jquery.min.js", "window.jQuery = 1;",
     "jquery@3.7.1/dist/jquery.min.js"),
    ("https://cdnjs.cloudflare.com/ajax/libs/lodash.js/4.17.21/lodash.min.js", "window._ = 1;", "lodash@4.17.21/lodash.min.js"),
    ("https://cdnjs.cloudflare.com/ajax/libs/three.js/r134/three.min.js", "window.THREE = {REVISION: '134'};",
     "three@0.134.0/build/three.min.js"),
    ("https://cdnjs.cloudflare.com/ajax/libs/Chart.js/4.4.0/chart.umd.min.js", "window.Chart = function Chart() {};",
     "chart.js@4.4.0/dist/chart.umd.js"),
    ("https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.4.0/css/all.min.css",
     "@font-face{src:url(../webfonts/fa-solid-900.woff2)}", "@fortawesome/fontawesome-free@6.4.0/css/all.min.css"),
    ("https://unpkg.com/react@18/umd/react.production.min.js", "window.React = {};", "react@18.3.1/umd/react.production.min.js"),
    ("https://cdn.tailwindcss.com", "/*play*/", "tailwindcss-cdn@3.4.10/tailwindcss.js"),
    ("https://cdn.tailwindcss.com/?plugins=forms", "/*forms*/", "tailwindcss-cdn@3.4.10/tailwindcss-with-forms.js"),
    ("https://cdn.tailwindcss.com/3.4.1", "/*3.4.1*/", "tailwindcss-cdn@3.4.10/3.4.1/tailwindcss.js"),
    ("https://cdn.tailwindcss.com/3.9.9", "/*play*/", "tailwindcss-cdn@3.4.10/tailwindcss.js"),
])
def test_cdn_urls_are_answered_with_the_package_file(mirror, url, body, served):
    hit = mirror.resolve(url)
    assert hit is not None, mirror.lookup(url)
    assert hit.body.decode() == body
    assert hit.label == served


def test_content_types_follow_the_file(mirror):
    css = mirror.resolve("https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.4.0/css/all.min.css")
    font = mirror.resolve("https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.4.0/webfonts/fa-solid-900.woff2")
    js = mirror.resolve("https://cdn.jsdelivr.net/npm/jquery@3/dist/jquery.min.js")
    assert css.content_type.startswith("text/css")
    assert (font.content_type, font.body) == ("font/woff2", b"wOF2\x00\x01")
    assert js.content_type.startswith("text/javascript")


def test_a_css_package_url_imports_its_file_so_relative_urls_still_resolve(mirror):
    body = _body(mirror, "https://cdn.jsdelivr.net/npm/animate.css@4")
    assert body == '@import url("https://unpkg.com/animate.css@4.1.1/animate.css");\n'
    assert _body(mirror, "https://unpkg.com/animate.css@4.1.1/animate.css") == ".a{}"


def test_esm_urls_get_a_stub_that_reexports_the_module_entry(mirror):
    stub = _body(mirror, "https://esm.sh/chart.js@4")
    assert stub == ('export * from "https://esm.sh/chart.js@4.4.0/dist/chart.js";\n'
                    'export { default } from "https://esm.sh/chart.js@4.4.0/dist/chart.js";\n')
    assert _body(mirror, "https://cdn.jsdelivr.net/npm/chart.js@4.4.0/+esm") == stub
    assert _body(mirror, "https://cdn.skypack.dev/chart.js@4.4.0") == stub


def test_served_modules_import_their_dependencies_through_the_mirror(mirror):
    module = _body(mirror, "https://esm.sh/chart.js@4.4.0/dist/chart.js")
    assert "from 'https://esm.sh/@kurkle/color@%5E0.3.0'" in module
    dependency = _body(mirror, "https://esm.sh/@kurkle/color@%5E0.3.0")
    assert dependency == 'export * from "https://esm.sh/@kurkle/color@0.3.2/dist/color.esm.js";\n'
    assert _body(mirror, "https://esm.sh/@kurkle/color@0.3.2/dist/color.esm.js") == "export class Color {}"


def test_commonjs_only_packages_are_a_miss_with_the_reason(mirror):
    found = mirror.lookup("https://esm.sh/react@18")
    assert isinstance(found, cdn.Miss)
    assert "no ES module entry" in found.reason


@pytest.mark.parametrize(("url", "reason"), [
    ("https://cdn.jsdelivr.net/npm/jquery@3.7.1/dist/missing.js", "has no file dist/missing.js"),
    ("https://cdn.jsdelivr.net/npm/jquery@9", "no version of jquery matches '9'"),
    ("https://unpkg.com/no-such-package@1/x.js", "the registry has no"),
    ("https://example.com/jquery.js", "not a CDN URL"),
])
def test_what_the_mirror_cannot_answer_is_a_miss(mirror, url, reason):
    found = mirror.lookup(url)
    assert isinstance(found, cdn.Miss) and reason in found.reason
    assert mirror.resolve(url) is None


def test_the_second_answer_comes_from_disk_without_network(tmp_path, registry):
    first = cdn.Mirror(tmp_path / "cdn", registry=registry.url)
    assert first.resolve("https://cdn.jsdelivr.net/npm/chart.js@4.4.0/dist/chart.umd.js")
    assert registry.hits("/chart.js/-/") == 1
    before = len(registry.requests)
    # A new mirror (another worker, another run) over the same folder: exact and ranges.
    again = cdn.Mirror(tmp_path / "cdn", registry=registry.url)
    assert again.resolve("https://cdn.jsdelivr.net/npm/chart.js@4.4.0/dist/chart.umd.js")
    assert again.resolve("https://unpkg.com/chart.js@4/dist/chart.umd.js")
    assert len(registry.requests) == before
    assert again.packages.network_requests == 0


def test_without_fetching_only_the_cache_answers(tmp_path, registry):
    cdn.Mirror(tmp_path / "cdn", registry=registry.url).resolve("https://unpkg.com/jquery@3.7.1/dist/jquery.min.js")
    offline = cdn.Mirror(tmp_path / "cdn", registry="http://127.0.0.1:9", fetch=False)
    assert offline.resolve("https://cdnjs.cloudflare.com/ajax/libs/jquery/3.7.1/jquery.min.js").label \
        == "jquery@3.7.1/dist/jquery.min.js"
    assert offline.resolve("https://cdn.jsdelivr.net/npm/jquery@3/dist/jquery.min.js") is not None
    missing = offline.lookup("https://cdn.jsdelivr.net/npm/lodash@4/lodash.min.js")
    assert isinstance(missing, cdn.Miss) and "fetching is off" in missing.reason
    assert offline.packages.network_requests == 0


def test_a_tarball_that_fails_its_integrity_check_is_not_cached(tmp_path, registry):
    evil = Package("evil", "1.0.0", {"index.js": "window.pwned = 1;"})
    data = npm_registry.tarball(evil)
    registry.add(evil, data, dist={"tarball": registry.url + "/evil/-/evil-1.0.0.tgz",
                                   "integrity": npm_registry.integrity(b"something else")})
    mirror = cdn.Mirror(tmp_path / "cdn", registry=registry.url)
    found = mirror.lookup("https://unpkg.com/evil@1.0.0/index.js")
    assert isinstance(found, cdn.Miss) and "integrity" in found.reason
    assert not (tmp_path / "cdn/evil@1.0.0").exists()


def test_sha1_shasum_is_checked_when_there_is_no_integrity(tmp_path, registry):
    old = Package("oldpkg", "0.1.0", {"index.js": "ok"})
    data = npm_registry.tarball(old)
    registry.add(old, data, dist={"tarball": registry.url + "/oldpkg/-/oldpkg-0.1.0.tgz",
                                  "shasum": hashlib.sha1(data).hexdigest()})
    assert cdn.Mirror(tmp_path / "cdn", registry=registry.url).resolve("https://unpkg.com/oldpkg@0.1.0/index.js")


def test_transient_registry_errors_are_retried(tmp_path, registry):
    registry.faults["/jquery"] = [503, 502]
    mirror = cdn.Mirror(tmp_path / "cdn", registry=registry.url, limits=npm.Limits(retry_wait_s=0.01))
    assert mirror.resolve("https://unpkg.com/jquery@3/dist/jquery.min.js") is not None
    assert registry.hits("/jquery") >= 3


def test_a_registry_that_stays_down_is_a_miss_not_an_exception(tmp_path, registry):
    registry.faults["/jquery"] = [503] * 10
    mirror = cdn.Mirror(tmp_path / "cdn", registry=registry.url, limits=npm.Limits(attempts=2, retry_wait_s=0.01))
    found = mirror.lookup("https://unpkg.com/jquery@3/dist/jquery.min.js")
    assert isinstance(found, cdn.Miss) and "did not answer" in found.reason


def test_workers_filling_the_same_package_at_once_share_one_folder(tmp_path, registry):
    mirrors = [cdn.Mirror(tmp_path / "cdn", registry=registry.url) for _ in range(4)]
    results: list = []
    threads = [threading.Thread(target=lambda m=m: results.append(
        m.resolve("https://cdnjs.cloudflare.com/ajax/libs/three.js/r134/three.min.js"))) for m in mirrors]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [r.body for r in results] == [b"window.THREE = {REVISION: '134'};"] * 4
    assert [p.name for p in (tmp_path / "cdn").iterdir() if p.name.startswith("three@")] == ["three@0.134.0"]
    assert not list((tmp_path / "cdn/.tmp").iterdir())  # no half-made folders left behind


def test_a_package_the_registry_lacks_is_asked_for_once_per_mirror(mirror, registry):
    for _ in range(3):
        assert mirror.resolve("https://unpkg.com/no-such-package@1/x.js") is None
    assert registry.hits("/no-such-package") == 1
