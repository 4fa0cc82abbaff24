"""A Nitro app (Nuxt, SolidStart) built for a host's runtime (its config's preset) is this
environment's limit, named, as an Astro app with another host's adapter is: only Nitro's
Node server output runs here."""

from __future__ import annotations

import pytest

from iwcbench.pipeline.stages.instrumenting import failures, recipes


@pytest.mark.parametrize(("files", "preset"), [
    ({"nuxt.config.ts": "export default defineNuxtConfig({ nitro: { preset: 'vercel-edge' } })"}, "vercel-edge"),
    ({"app.config.ts": 'export default defineConfig({ server: { preset: "netlify" } })'}, "netlify"),
    ({"nuxt.config.iwc-original.ts": "export default { nitro: { preset: 'cloudflare-pages' } }"}, "cloudflare-pages"),
    ({"nuxt.config.ts": "export default defineNuxtConfig({ nitro: { preset: 'node-server' } })"}, None),
    ({"app.config.ts": 'export default defineConfig({ server: { preset: "" } })'}, None),
    ({"nuxt.config.ts": "export default defineNuxtConfig({})"}, None),
])
def test_the_preset_a_nitro_app_is_built_for_is_read_from_its_config(app, files, preset):
    assert recipes.nitro_preset(app(files)) == preset


def test_such_a_build_is_this_environment_s_limit():
    reason = f"build left no .output/public/index.html (its Nitro preset vercel-edge {failures.OTHER_RUNTIME})"
    assert failures.environment_caused(reason)
    assert not failures.environment_caused("build left no .output/public/index.html (the app may need a server)")
