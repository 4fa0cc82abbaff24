/*
 * A Vite plugin that puts Istanbul counters into the app's own modules, for `vite build`
 * and for Astro's client build (Astro builds with Vite).
 *
 * It runs first (enforce "pre", placed at the head of the plugin list), on the source
 * as written (instrumenting.cjs), so that locations are lines of the original file and
 * keys are paths relative to the app's root. vite-plugin-istanbul instruments after
 * Vite's own transforms instead, which leaves locations in compiled-code coordinates,
 * keys absolute, and needs `vite` importable from our tool folder. Server-side modules
 * (SSR, Astro's prerendering) are not instrumented: they never run in the browser.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const instrumenting = require('./instrumenting.cjs');
const recording = require('./recording.cjs');

export default function iwcIstanbul() {
    const root = recording.appRoot();
    return {
        name: 'iwc:istanbul',
        enforce: 'pre',
        apply: 'build',
        transform(code, id, options) {
            if (options?.ssr) {
                return null;
            }
            return instrumenting.instrument(root, id, code);
        },
    };
}
