/*
 * The Astro config of an instrumented build: the app's own config with our Istanbul
 * Vite plugin (vite-plugin.mjs) in front of its Vite plugins and Vite source maps on.
 * Astro builds the browser scripts of its pages, and the islands of UI frameworks, with
 * Vite; the plugin leaves the server-side (prerendering) build alone. building.py
 * writes a two-line config into the app's copy that imports the app's original config
 * and calls this. It must not change anything else about the app's build.
 */
import iwcIstanbul, { iwcIstanbulComponents } from './vite-plugin.mjs';

export default function config(user) {
    const base = user || {};
    const vite = base.vite || {};
    return {
        ...base,
        vite: {
            ...vite,
            plugins: [iwcIstanbul(), ...(vite.plugins || []), iwcIstanbulComponents()],
            build: { ...(vite.build || {}), sourcemap: true },
        },
    };
}
