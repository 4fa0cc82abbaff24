/*
 * The SolidStart (Vinxi) app of an instrumented build: the app's own app.config (the
 * Vinxi app its defineConfig made, imported by the two-line config building.py writes
 * and passes to `vinxi build --config`), with our Istanbul Vite plugins added to every
 * router Vite builds (the browser's client, the server's ssr and server-fns; their
 * place in each list is set by `enforce`). It must not change anything else of the app.
 */
import iwcIstanbul, { iwcIstanbulComponents } from './vite-plugin.mjs';

export default function config(app) {
    // (each router's `plugins` is a function of the router, awaited by Vinxi's build; its
    // own addRouterPlugins spreads that function instead of calling it)
    for (const router of app.config.routers) {
        if (router.type === 'static') {
            continue;
        }
        const own = router.plugins;
        router.plugins = async (...args) => [iwcIstanbul(), ...((await own?.(...args)) ?? []), iwcIstanbulComponents()];
    }
    return app;
}
