"""An app that its framework's own server serves (a server build): the marker file the
build leaves in the app's site folder, read by the serving stage.

A framework app that cannot be exported as static files (a Next.js page rendered per
request, route handlers, Astro's ``output: "server"``) is built for its server instead
(stages/instrumenting/building.py). Its site folder then holds the client files (for
the counters' places and same-origin file checks) and ``MARKER``; serving finds the
marker and runs the app's server in place of serving files. Data only, no I/O.
"""

from __future__ import annotations

from typing import Literal

import pydantic

from iwcbench.pipeline.contracts import base

MARKER = "iwc-server.json"  # in the site folder
# Served beside the app (never proxied to it): the counters of the app's server-side
# modules as JSON (Istanbul's ``__coverage__`` of the server process; {} when its
# build counted none), 404 for a static site
COUNTERS_PATH = "/__iwc__/server-coverage"


class ServerBuild(base.Stored):
    framework: Literal["next", "astro", "sveltekit", "react-router", "remix", "nuxt", "qwik", "solid-start"]
    app: str = pydantic.Field(description="the built app's copy (node_modules, .next/ or dist/), relative to "
                                          "the site folder, or absolute")
    entry: str | None = pydantic.Field(None, description="the server entry, relative to the app's copy (Astro: "
                                                         "dist/server/entry.mjs; React Router, Remix: "
                                                         "build/server/index.js)")
    reason: str = pydantic.Field(description="why the app needs its server (the static export's failure)")
    memory_mib: int = pydantic.Field(4096, ge=64, description="resident memory of the server with all its "
                                                              "processes, MiB (the build's limit)")
    cpu_s: int = pydantic.Field(1800, ge=10, description="CPU seconds of any one server process (the build's)")
