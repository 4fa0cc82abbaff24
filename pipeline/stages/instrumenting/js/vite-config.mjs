/*
 * The Vite config of an instrumented build: the app's own config, loaded the way Vite
 * loads it, with our Istanbul plugin in front of its plugins and source maps on.
 * (and, after them, the one for component files)
 * building.py writes a two-line config into the app's copy that imports the app's own
 * Vite and calls this with its loadConfigFromFile (the config must sit in the app: Vite
 * writes a compiled copy beside it, and `vite` must resolve to the app's version).
 * $IWC_APP_CONFIG names the app's config file ("" when it has none). A base on another
 * host is served under its path here. It must not change anything else about the
 * app's build.
 */
import path from 'node:path';
import iwcIstanbul, { iwcIstanbulComponents } from './vite-plugin.mjs';

export default async function config(env, loadConfigFromFile) {
    const root = process.env.IWC_APP_ROOT || process.cwd();
    const file = process.env.IWC_APP_CONFIG || '';
    const loaded = file ? await loadConfigFromFile(env, path.resolve(root, file), root) : null;
    const user = loaded ? loaded.config : {};
    const plugins = [iwcIstanbul(), ...(user.plugins || []), iwcIstanbulComponents()];
    const built = { ...user, plugins, build: { ...(user.build || {}), sourcemap: true } };
    if (typeof user.base === 'string' && /^https?:\/\//i.test(user.base)) {
        // built for another host (`base: 'https://me.github.io/app/'`): its scripts would
        // load from there; served here under that URL's path instead, as it is there
        built.base = new URL(user.base).pathname;
    }
    return built;
}
