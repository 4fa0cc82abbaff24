/*
 * A Qwik app's build, as its `qwik build` runs it without type checks and lints: the
 * client build (`vite build`), then, when the app has src/entry.preview.tsx (every Qwik
 * City starter does), the server build Vite's preview server runs (`vite build --ssr
 * src/entry.preview.tsx`).
 *
 *   node qwik-build.mjs <the app's vite.js> [vite build options: --config iwc.vite.config.mjs]
 *
 * Each build is Vite's own CLI in a child process with this one's environment; the first
 * that fails ends this one with its exit status. It must not change either build.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

const [vite, ...options] = process.argv.slice(2);
const PREVIEW_ENTRY = 'src/entry.preview.tsx';

const builds = [[]];
if (fs.existsSync(PREVIEW_ENTRY)) {
    builds.push(['--ssr', PREVIEW_ENTRY]);
}
for (const extra of builds) {
    const done = spawnSync(process.execPath, [vite, 'build', ...extra, ...options], { stdio: 'inherit' });
    if (done.status !== 0) {
        process.exit(done.status ?? 1);
    }
}
