"""CDN URLs → (package, version or range, file, mode): the table the mirror relies on."""

from __future__ import annotations

import pytest

from iwcbench.pipeline.kits.mirror import cdn

CASES = [
    # jsdelivr
    ("https://cdn.jsdelivr.net/npm/chart.js@4.4.0/dist/chart.umd.min.js",
     ("chart.js", "4.4.0", "dist/chart.umd.min.js", "file")),
    ("https://cdn.jsdelivr.net/npm/chart.js", ("chart.js", "", "", "file")),
    ("https://cdn.jsdelivr.net/npm/chart.js@latest", ("chart.js", "latest", "", "file")),
    ("https://cdn.jsdelivr.net/npm/@fortawesome/fontawesome-free@6.4.0/css/all.min.css",
     ("@fortawesome/fontawesome-free", "6.4.0", "css/all.min.css", "file")),
    ("https://cdn.jsdelivr.net/npm/@fortawesome/fontawesome-free/css/all.css",
     ("@fortawesome/fontawesome-free", "", "css/all.css", "file")),
    ("https://cdn.jsdelivr.net/npm/d3@7/+esm", ("d3", "7", "", "esm")),
    ("https://cdn.jsdelivr.net/npm/lit@3/decorators.js/+esm", ("lit", "3", "decorators.js", "esm")),
    ("https://cdn.jsdelivr.net/npm/vue@%5E3.2/dist/vue.global.js", ("vue", "^3.2", "dist/vue.global.js", "file")),
    ("https://fastly.jsdelivr.net/npm/gsap@3.12/dist/gsap.min.js", ("gsap", "3.12", "dist/gsap.min.js", "file")),
    ("https://esm.run/canvas-confetti@1", ("canvas-confetti", "1", "", "esm")),
    # unpkg
    ("https://unpkg.com/react@18/umd/react.production.min.js",
     ("react", "18", "umd/react.production.min.js", "file")),
    ("https://unpkg.com/three", ("three", "", "", "file")),
    ("https://unpkg.com/three@0.160.0/build/three.module.js?module",
     ("three", "0.160.0", "build/three.module.js", "esm")),
    # esm.sh and skypack
    ("https://esm.sh/preact@10.19.2", ("preact", "10.19.2", "", "esm")),
    ("https://esm.sh/v135/react-dom@18.2.0/client?bundle", ("react-dom", "18.2.0", "client", "esm")),
    ("https://esm.sh/stable/vue@3.3.4", ("vue", "3.3.4", "", "esm")),
    ("https://esm.sh/*lit@3", ("lit", "3", "", "esm")),
    ("https://esm.sh/@kurkle/color@%5E0.3.0", ("@kurkle/color", "^0.3.0", "", "esm")),
    ("https://cdn.skypack.dev/canvas-confetti@1.6.0?min", ("canvas-confetti", "1.6.0", "", "esm")),
    # cdnjs: names and versions mapped to npm
    ("https://cdnjs.cloudflare.com/ajax/libs/three.js/r134/three.min.js",
     ("three", "~0.134.0", "three.min.js", "file")),
    ("https://cdnjs.cloudflare.com/ajax/libs/Chart.js/4.4.0/chart.umd.min.js",
     ("chart.js", "4.4.0", "chart.umd.min.js", "file")),
    ("https://cdnjs.cloudflare.com/ajax/libs/lodash.js/4.17.21/lodash.min.js",
     ("lodash", "4.17.21", "lodash.min.js", "file")),
    ("https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.4.0/css/all.min.css",
     ("@fortawesome/fontawesome-free", "6.4.0", "css/all.min.css", "file")),
    ("https://cdnjs.cloudflare.com/ajax/libs/font-awesome/4.7.0/css/font-awesome.min.css",
     ("font-awesome", "4.7.0", "css/font-awesome.min.css", "file")),
    ("https://cdnjs.cloudflare.com/ajax/libs/twitter-bootstrap/5.3.2/css/bootstrap.min.css",
     ("bootstrap", "5.3.2", "css/bootstrap.min.css", "file")),
    ("https://cdnjs.cloudflare.com/ajax/libs/p5.js/1.7.0/addons/p5.sound.min.js",
     ("p5", "1.7.0", "addons/p5.sound.min.js", "file")),
    ("https://cdnjs.cloudflare.com/ajax/libs/anime.js/3.2.1/anime.min.js",
     ("animejs", "3.2.1", "anime.min.js", "file")),
    ("https://cdnjs.cloudflare.com/ajax/libs/moment.js/2.29.4/moment.min.js",
     ("moment", "2.29.4", "moment.min.js", "file")),
    ("https://cdnjs.cloudflare.com/ajax/libs/axios/1.5.0/axios.min.js", ("axios", "1.5.0", "axios.min.js", "file")),
    ("https://cdnjs.cloudflare.com/ajax/libs/popper.js/2.11.8/umd/popper.min.js",
     ("@popperjs/core", "2.11.8", "umd/popper.min.js", "file")),
    # the Tailwind Play CDN
    ("https://cdn.tailwindcss.com", ("tailwindcss-cdn", "3.4.10", "tailwindcss.js", "file")),
    ("https://cdn.tailwindcss.com/?plugins=forms", ("tailwindcss-cdn", "3.4.10", "tailwindcss-with-forms.js", "file")),
    ("https://cdn.tailwindcss.com/3.4.1?plugins=forms,typography",
     ("tailwindcss-cdn", "3.4.10", "3.4.1/tailwindcss-with-all-plugins.js", "file")),
]


@pytest.mark.parametrize(("url", "expected"), CASES, ids=[c[0].split("//")[1][:60] for c in CASES])
def test_a_cdn_url_names_a_package_version_and_file(url, expected):
    spec = cdn.parse(url)
    assert spec is not None
    assert (spec.package, spec.range, spec.path, spec.mode) == expected


def test_cdnjs_and_tailwind_files_may_be_found_by_name():
    assert cdn.parse("https://cdnjs.cloudflare.com/ajax/libs/jquery/3.7.1/jquery.min.js").loose
    assert not cdn.parse("https://cdn.jsdelivr.net/npm/jquery@3.7.1/dist/jquery.min.js").loose


@pytest.mark.parametrize("url", [
    "https://example.com/x.js",
    "https://cdn.jsdelivr.net/gh/user/repo@1/file.js",
    "https://cdn.jsdelivr.net/combine/npm/a@1,npm/b@2",
    "https://cdn.jsdelivr.net/npm/chart.js@4/dist/",  # a directory listing
    "https://unpkg.com/browse/react@18/",
    "https://cdn.jsdelivr.net/npm/pkg@1/../../etc/passwd",
    "https://cdnjs.cloudflare.com/ajax/libs/jquery/",  # no version, no file
    "https://cdnjs.cloudflare.com/ajax/libs/jquery/3.7.1/../../x.js",
    "https://esm.sh/gh/user/repo",
    "https://cdn.skypack.dev/-/react@v17.0.1-yH0aYV1FOvoIPeKBbHxg/dist=es2020,mode=imports/optimized/react.js",
    "https://cdn.tailwindcss.com/not-a-version",
    "ftp://unpkg.com/react",
    "not a url at all",
])
def test_urls_the_mirror_does_not_understand_give_none(url):
    assert cdn.parse(url) is None


def test_the_mirror_exposes_the_same_pure_parse(tmp_path):
    mirror = cdn.Mirror(tmp_path, fetch=False)
    assert mirror.parse("https://unpkg.com/three") == cdn.parse("https://unpkg.com/three")
