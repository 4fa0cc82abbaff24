/*
 * The Nuxt config of an instrumented build: the app's own (nuxt.config.*, renamed beside
 * the two-line config building.py writes, which imports it and calls this) with our
 * Istanbul Vite plugins around its Vite plugins, for the Vue app Nuxt builds for the
 * browser and for its server render, and our Nitro plugin in front of Nitro's rollup
 * plugins, for the app's own server routes (server/api, server/routes, server/utils), all
 * with source maps. A config written as a function is called first. It must not change
 * anything else about the app's build.
 */
import iwcIstanbul, { iwcIstanbulComponents, iwcIstanbulServer } from './vite-plugin.mjs';

export default function config(user) {
    const base = (typeof user === 'function' ? user() : user) || {};
    const vite = base.vite || {};
    const nitro = base.nitro || {};
    const rollup = nitro.rollupConfig || {};
    return {
        ...base,
        sourcemap: { server: true, client: true },
        vite: {
            ...vite,
            plugins: [iwcIstanbul(), ...(vite.plugins || []), iwcIstanbulComponents()],
            build: { ...(vite.build || {}), sourcemap: true },
        },
        // Nitro's own plugins come after the config's: ours sees the route files as written
        nitro: { ...nitro, rollupConfig: { ...rollup, plugins: [iwcIstanbulServer(), ...[].concat(rollup.plugins || [])] } },
    };
}
