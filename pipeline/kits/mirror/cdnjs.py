"""cdnjs library names → npm packages and versions (data and one pure function).

cdnjs publishes libraries under its own names (``three.js``, ``Chart.js``,
``twitter-bootstrap``) and sometimes its own versions (three.js ``r134``); the files
are copies of an npm package's build output, often from a sub-folder (``dist/``,
``build/``). The mirror serves the npm package; kits/cdn.py finds the file by the
same relative path or, failing that, by name. Names not listed here are tried as npm
names unchanged (lower-cased), which is right for most libraries (axios, d3, gsap).
No I/O.
"""

from __future__ import annotations

import re

# cdnjs name (lower-case) → npm package, or [(first major, npm package), ...] when the
# package changed name between majors (the highest first major ≤ the version wins).
NAMES: dict[str, str | list[tuple[int, str]]] = {
    "three.js": "three",
    "chart.js": "chart.js",
    "jquery": "jquery",
    "lodash.js": "lodash",
    "underscore.js": "underscore",
    "font-awesome": [(0, "font-awesome"), (5, "@fortawesome/fontawesome-free")],
    "animate.css": "animate.css",
    "gsap": "gsap",
    "d3": "d3",
    "p5.js": "p5",
    "anime.js": "animejs",
    "moment.js": "moment",
    "axios": "axios",
    "vue": "vue",
    "react": "react",
    "react-dom": "react-dom",
    "twitter-bootstrap": "bootstrap",
    "bootstrap": "bootstrap",
    "tailwindcss": "tailwindcss",
    "popper.js": [(0, "popper.js"), (2, "@popperjs/core")],
    "babel-standalone": [(0, "babel-standalone"), (7, "@babel/standalone")],
    "highlight.js": [(0, "highlight.js"), (10, "@highlightjs/cdn-assets")],
    "tween.js": "@tweenjs/tween.js",
    "matter-js": "matter-js",
    "pixi.js": "pixi.js",
    "phaser": "phaser",
    "howler": "howler",
    "tone": "tone",
    "leaflet": "leaflet",
    "aos": "aos",
    "sortable": "sortablejs",
    "sortablejs": "sortablejs",
    "sweetalert2": "sweetalert2",
    "toastr.js": "toastr",
    "marked": "marked",
    "dompurify": "dompurify",
    "dayjs": "dayjs",
    "crypto-js": "crypto-js",
    "jspdf": "jspdf",
    "html2canvas": "html2canvas",
    "mathjs": "mathjs",
    "swiper": "swiper",
    "bulma": "bulma",
    "materialize": "materialize-css",
    "normalize": "normalize.css",
    "typed.js": "typed.js",
    "scrollmagic": "scrollmagic",
    "velocity": "velocity-animate",
    "hammer.js": "hammerjs",
    "fabric.js": "fabric",
    "konva": "konva",
    "paper.js": "paper",
    "two.js": "two.js",
    "echarts": "echarts",
    "alpinejs": "alpinejs",
    "canvas-confetti": "canvas-confetti",
    "katex": "katex",
    "prism": "prismjs",
    "ace": "ace-builds",
    "handlebars.js": "handlebars",
    "mustache.js": "mustache",
    "backbone.js": "backbone",
    "knockout": "knockout",
    "jqueryui": "jquery-ui-dist",
    "jquery-ui": "jquery-ui-dist",
    "feather-icons": "feather-icons",
    "lucide": "lucide",
    "chartjs-plugin-datalabels": "chartjs-plugin-datalabels",
    "particles.js": "particles.js",
    "tsparticles": "tsparticles",
    "mermaid": "mermaid",
    "plotly.js": "plotly.js-dist-min",
    "cannon.js": "cannon",
    "stats.js": "stats.js",
    "dat-gui": "dat.gui",
    "simplex-noise": "simplex-noise",
    "seedrandom": "seedrandom",
    "localforage": "localforage",
    "immutable": "immutable",
    "rxjs": "rxjs",
    "socket.io": "socket.io-client",
    "flowbite": "flowbite",
    "daisyui": "daisyui",
}

_NPM_NAME = re.compile(r"^(?:@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*$")


def to_npm(name: str, version: str) -> tuple[str, str] | None:
    """(npm package, npm version or range) for a cdnjs library and version."""
    key = name.lower()
    entry = NAMES.get(key, key)
    if key == "three.js":
        # three's revisions r<N> are npm versions 0.<N>.0 (r125 and later; earlier
        # revisions were published as 0.<N>.0 too, with a few patch releases).
        rev = re.fullmatch(r"r(\d+)", version)
        if rev:
            return "three", f"~0.{int(rev[1])}.0"
    if isinstance(entry, list):
        major = re.match(r"v?(\d+)", version)
        wanted = int(major[1]) if major else 0
        entry = max((m, p) for m, p in entry if m <= wanted)[1]
    if not _NPM_NAME.match(entry) or not version or "/" in version:
        return None
    return entry, version
