/*
 * The Vite plugins that put Istanbul counters into the app's own modules, for
 * `vite build` and for Astro's client build (Astro builds with Vite).
 *
 * `iwcIstanbul()` runs first (enforce "pre", placed at the head of the plugin list), on
 * script files as written (instrumenting.cjs), so that locations are lines of the
 * original file and keys are paths relative to the app's root. vite-plugin-istanbul
 * instruments after Vite's own transforms instead, which leaves locations in
 * compiled-code coordinates, keys absolute, and needs `vite` importable from our tool
 * folder. `iwcIstanbulComponents()` runs last (enforce "post"): .vue, .svelte and
 * Astro's <script> blocks are JavaScript only after their framework's plugin compiled
 * them, so their counters go into that output, with locations mapped back to the
 * component file through the combined source map (components.cjs). Server-side modules
 * (SSR, Astro's prerendering) are not instrumented, except where the app's own server
 * runs while it is explored ($IWC_SERVER_COVERAGE=1: SvelteKit, React Router, Remix, Astro):
 * there the script files its server build compiles (load functions, form actions,
 * loaders, endpoints, hooks) get counters too, under the same keys, and each key is
 * marked with the side that compiled it (recording.side), so that a file only the
 * server runs is known as the server's. Components compiled for the server are not
 * counted: their server render is another program than the browser's.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const components = require('./components.cjs');
const instrumenting = require('./instrumenting.cjs');
const recording = require('./recording.cjs');

const SERVER_COVERAGE = process.env.IWC_SERVER_COVERAGE === '1';

/* `onServer`: the server build's modules are counted too; `serverOnly`: the bundler
 * builds only the server (Nitro's rollup), which says nothing of it to a transform. */
function plugin(name, enforce, instrument, { onServer = false, serverOnly = false } = {}) {
    const root = recording.appRoot();
    return {
        name,
        enforce,
        apply: 'build',
        transform(code, id, options) {
            const server = serverOnly || Boolean(options?.ssr);
            if (server && !onServer && !serverOnly) {
                return null;
            }
            const done = instrument.call(this, root, id, code);
            if (done && (SERVER_COVERAGE || serverOnly)) {
                recording.side(instrumenting.keyOf(root, id), server ? 'server' : 'client');
            }
            return done;
        },
    };
}

export default function iwcIstanbul() {
    return {
        ...plugin('iwc:istanbul', 'pre', instrumenting.instrument, { onServer: SERVER_COVERAGE }),
        configResolved(config) {
            // where the app expects to be served (`base: '/repo/'` for GitHub Pages)
            recording.fact('base', config.base);
        },
    };
}

/* For a bundler that builds only the server (Nitro's rollup build of Nuxt's server
 * routes): every script file of the app's own it compiles is the server's. */
export function iwcIstanbulServer() {
    return plugin('iwc:istanbul-server', 'pre', instrumenting.instrument, { serverOnly: true });
}

export function iwcIstanbulComponents() {
    return plugin('iwc:istanbul-components', 'post', function instrumentComponent(root, id, code) {
        // the combined map exists only while this transform runs: asked for only for a component
        return components.componentKey(root, id) === null ? null
            : components.instrument(root, id, code, this.getCombinedSourcemap());
    });
}
