"""Each framework's build runs the app's own config, wrapped with our Istanbul hook."""

from __future__ import annotations

import json

from iwcbench.pipeline.stages.instrumenting import recipes


def write(root, files: dict[str, str]):
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_vite_wraps_the_apps_own_config_file_and_builds_it_plain_as_it_stands(tmp_path):
    root = write(tmp_path, {"vite.config.ts": "export default {}"})
    recipe = recipes.recipe("vite", root, "node")
    shim = recipe.instrumented.files["iwc.vite.config.mjs"]
    assert "from 'vite'" in shim and str(recipes.JS_DIR / "vite-config.mjs") in shim
    assert recipe.instrumented.env["IWC_APP_CONFIG"] == "vite.config.ts"
    assert recipe.instrumented.argv[-2:] == ("--config", "iwc.vite.config.mjs")
    assert recipe.plain.argv == ("node", "node_modules/vite/bin/vite.js", "build") and not recipe.plain.files
    assert recipe.output == "dist"


def test_an_app_without_a_vite_config_gets_an_empty_one(tmp_path):
    assert recipes.recipe("vite", tmp_path, "node").instrumented.env["IWC_APP_CONFIG"] == ""


def test_next_renames_the_apps_config_aside_and_exports_statically(tmp_path):
    root = write(tmp_path, {"next.config.js": "module.exports = {}",
                            "node_modules/next/package.json": json.dumps({"version": "15.5.2"})})
    recipe = recipes.recipe("next", root, "node")
    assert recipe.instrumented.renames == {"next.config.js": "next.config.iwc-original.js"}
    assert "import user from './next.config.iwc-original.js'" in recipe.instrumented.files["next.config.mjs"]
    assert recipe.instrumented.env["IWC_NEXT_EXPORT"] == "1" and recipe.plain.env["IWC_INSTRUMENT"] == "0"
    assert "--webpack" not in recipe.instrumented.argv and recipe.output == "out"


def test_next_16_is_built_with_webpack_where_our_loader_applies(tmp_path):
    root = write(tmp_path, {"node_modules/next/package.json": json.dumps({"version": "16.0.3"})})
    recipe = recipes.recipe("next", root, "node")
    assert recipe.instrumented.argv[-1] == "--webpack"
    assert "const user = {}" in recipe.instrumented.files["next.config.mjs"]


def test_cra_turns_ci_lint_errors_off_and_astro_wraps_its_config(tmp_path):
    cra = recipes.recipe("cra", tmp_path, "node")
    assert cra.instrumented.env["CI"] == "false" and cra.output == "build"
    assert cra.instrumented.argv == ("node", str(recipes.JS_DIR / "cra-build.cjs"))
    root = write(tmp_path, {"astro.config.mjs": "export default {}"})
    astro = recipes.recipe("astro", root, "node")
    assert "import user from './astro.config.mjs'" in astro.instrumented.files["iwc.astro.config.mjs"]
    assert astro.instrumented.argv[-2:] == ("--config", "iwc.astro.config.mjs")
