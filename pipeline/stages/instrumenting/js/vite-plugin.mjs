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
 * (SSR, Astro's prerendering) are not instrumented: they never run in the browser.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const components = require('./components.cjs');
const instrumenting = require('./instrumenting.cjs');
const recording = require('./recording.cjs');

function plugin(name, enforce, instrument) {
    const root = recording.appRoot();
    return {
        name,
        enforce,
        apply: 'build',
        transform(code, id, options) {
            return options?.ssr ? null : instrument.call(this, root, id, code);
        },
    };
}

export default function iwcIstanbul() {
    return plugin('iwc:istanbul', 'pre', (root, id, code) => instrumenting.instrument(root, id, code));
}

export function iwcIstanbulComponents() {
    return plugin('iwc:istanbul-components', 'post', function instrumentComponent(root, id, code) {
        // the combined map exists only while this transform runs: asked for only for a component
        return components.componentKey(root, id) === null ? null
            : components.instrument(root, id, code, this.getCombinedSourcemap());
    });
}
