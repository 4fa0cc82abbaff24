/*
 * The Next.js config of an instrumented build: the app's own config (an object, a
 * function of the phase, or a promise of either), plus
 *   - our Istanbul loader (webpack-loader.cjs) as an enforce-"pre" rule on the app's
 *     own source for the browser compilation (server bundles never run in the browser);
 *     SWC stays the compiler, so next/font and the rest behave as without us;
 *   - browser source maps;
 *   - a static export (`output: "export"`) when $IWC_NEXT_EXPORT is "1".
 * With $IWC_INSTRUMENT "0" (the plain build after an instrumented one failed) only the
 * export is added.
 * building.py writes a two-line next.config.mjs into the app's copy that imports the
 * app's original config (renamed beside it) and calls this. It must not change
 * anything else about the app's build.
 */
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const LOADER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'webpack-loader.cjs');

/* The loaders an app gave Turbopack (`turbopack.rules`) for a file type webpack already
 * compiles, added after (so before, in the order loaders run) Next.js's own loaders of
 * that type: Next.js 16 builds with Turbopack, we build it with webpack (our loader is a
 * webpack loader), and create-next-app 16.4 compiles Tailwind CSS with
 * `"*.css": { loaders: ["@tailwindcss/turbopack"] }`, without which the page would be
 * built unstyled. A rule of our own for `.css` would turn Next.js's CSS support off, so
 * the loaders join Next.js's CSS rules. Only a rule whose output keeps its file type is
 * taken (SVG as JavaScript would need webpack's pipeline to change). */
function addTurbopackLoaders(rules, turbopack, root) {
    const wanted = Object.entries((turbopack && turbopack.rules) || {});
    const appRequire = createRequire(path.join(root, 'package.json'));
    for (const [glob, rule] of wanted) {
        const ext = /^\*\.([A-Za-z0-9]+)$/.exec(glob);
        const spec = Array.isArray(rule) ? { loaders: rule } : rule;
        if (!ext || !spec || !Array.isArray(spec.loaders) || (spec.as && spec.as !== glob)) {
            continue;
        }
        const loaders = spec.loaders.map((l) => {
            const { loader, options } = typeof l === 'string' ? { loader: l } : l;
            let resolved = loader;
            try { resolved = appRequire.resolve(loader); } catch { /* webpack resolves it, or says why */ }
            return options === undefined ? { loader: resolved } : { loader: resolved, options };
        });
        const sample = `x.${ext[1]}`;
        const visit = (list) => {
            for (const r of list || []) {
                if (!r || typeof r !== 'object') continue;
                visit(r.oneOf);
                visit(r.rules);
                if (r.test instanceof RegExp && r.test.test(sample) && Array.isArray(r.use) && r.use.length) {
                    r.use.push(...loaders);
                }
            }
        };
        visit(rules);
    }
}

export default async function config(user, phase, context) {
    const resolved = typeof user === 'function' ? await user(phase, context) : await user;
    const base = resolved || {};
    const userWebpack = base.webpack;
    const root = process.env.IWC_APP_ROOT || process.cwd();
    const result = {
        ...base,
        productionBrowserSourceMaps: true,
        webpack(webpackConfig, options) {
            const out = typeof userWebpack === 'function' ? userWebpack(webpackConfig, options) : webpackConfig;
            if (process.env.IWC_NEXT_WEBPACK_FORCED === '1') {
                addTurbopackLoaders(out.module.rules, base.turbopack, root);
            }
            if (!options.isServer && process.env.IWC_INSTRUMENT !== '0') {
                out.module.rules.unshift({
                    test: /\.(m?jsx?|cjs|tsx?|mts|cts)$/,
                    include: [root],
                    exclude: /[\\/]node_modules[\\/]/,
                    enforce: 'pre',
                    use: [{ loader: LOADER }],
                });
            }
            return out;
        },
    };
    if (process.env.IWC_NEXT_EXPORT === '1') {
        result.output = 'export';
    }
    return result;
}
