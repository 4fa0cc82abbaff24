/*
 * An app's own server, built by its framework (stages/instrumenting/building.py, a
 * server build), listening on a Unix domain socket: the serving stage proxies the
 * browser's requests to it (a namespaced server's loopback is not ours; a socket file
 * is reachable from both sides).
 *
 *   node server.mjs <framework> <app folder> <socket path> [<server entry>]
 *
 *   next          next({ dev: false, dir }).prepare(), then its request handler
 *   astro         the @astrojs/node adapter's dist/server/entry.mjs (auto-start off): its
 *                 `handler`, with the client files (dist/client) served here first, as its
 *                 standalone server does
 *   sveltekit     Vite's preview server, which serves a SvelteKit build (.svelte-kit/output)
 *                 whatever its adapter, with the app's own vite config
 *   qwik          the same, for Qwik City's preview build (server/entry.preview.mjs)
 *   react-router  @react-router/serve's CLI on the server entry (build/server/index.js)
 *   remix         @remix-run/serve's CLI on the same
 *   nuxt          Nitro's server entry (.output/server/index.mjs), which listens when imported
 *   solid-start   the same, of a SolidStart (Vinxi) build
 *
 * The last three listen on a TCP port of their own: one free port of the loopback the
 * server sees (a namespace's own where it has one), and the socket is bridged to it.
 * Every server runs in this process, so the counters of the app's server-side modules
 * (globalThis.__coverage__, when its build counted them) are this process's: a second
 * socket beside the first (<socket path>.coverage) answers each connection with them as
 * JSON and closes.
 *
 * Prints "iwc-server: listening" once the socket accepts connections; any failure to
 * start goes to stderr with exit status 3 (an app whose adapter is not @astrojs/node
 * says which adapter it has). It exits when its parent (our serving process) is gone.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const [framework, dir, socketPath, entry] = process.argv.slice(2);
const TYPES = {
    '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
    '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png',
    '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp', '.ico': 'image/x-icon',
    '.woff': 'font/woff', '.woff2': 'font/woff2', '.ttf': 'font/ttf', '.txt': 'text/plain; charset=utf-8',
    '.map': 'application/json', '.wasm': 'application/wasm',
};

function fail(message) {
    process.stderr.write(`iwc-server: ${message}\n`);
    process.exit(3);
}

async function nextHandler() {
    const require = createRequire(path.join(dir, 'package.json'));
    const next = require('next');
    const app = next({ dev: false, dir, quiet: false });
    await app.prepare();
    return app.getRequestHandler();
}

function staticFile(client, req, res) {
    // the client files of an Astro server build; anything else: not handled
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    let pathname;
    try {
        pathname = decodeURIComponent(new URL(req.url, 'http://app').pathname);
    } catch {
        return false;
    }
    const file = path.resolve(client, '.' + pathname);
    if (!file.startsWith(client + path.sep)) return false;
    let stat;
    try {
        stat = fs.statSync(file);
    } catch {
        return false;
    }
    if (!stat.isFile()) return false;
    res.writeHead(200, {
        'Content-Type': TYPES[path.extname(file).toLowerCase()] || 'application/octet-stream',
        'Content-Length': stat.size,
    });
    if (req.method === 'HEAD') res.end();
    else fs.createReadStream(file).pipe(res);
    return true;
}

async function astroHandler() {
    process.env.ASTRO_NODE_AUTOSTART = 'disabled'; // standalone mode would listen on a port of its own
    const built = await import(pathToFileURL(path.resolve(dir, entry)).href);
    if (typeof built.handler !== 'function') {
        fail(`${entry} exports no handler: the app's Astro adapter is not @astrojs/node `
            + `(exports: ${Object.keys(built).join(', ') || 'none'})`);
    }
    // The client files (dist/client) first, as the adapter's standalone server serves
    // them (its exported handler renders pages only, in some versions of either mode)
    // and an Express app in front of a middleware-mode one would
    const client = path.resolve(dir, 'dist', 'client');
    return (req, res) => {
        if (staticFile(client, req, res)) return;
        built.handler(req, res, () => {
            res.writeHead(404, { 'Content-Type': 'text/plain' });
            res.end('not found\n');
        });
    };
}

/* The ES module a package of the app's exports (its "import" condition, else main). */
async function importPackage(name) {
    const folder = path.join(dir, 'node_modules', ...name.split('/'));
    let manifest;
    try {
        manifest = JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8'));
    } catch {
        fail(`the app does not install ${name}, which its server needs`);
    }
    let entry = manifest.exports && (manifest.exports['.'] ?? manifest.exports);
    for (let depth = 0; entry && typeof entry === 'object' && depth < 4; depth += 1) {
        entry = entry.import ?? entry.node ?? entry.default;
    }
    return import(pathToFileURL(path.join(folder, typeof entry === 'string' ? entry : (manifest.main || 'index.js'))).href);
}

function freePort() {
    return new Promise((resolve, reject) => {
        const probe = net.createServer();
        probe.on('error', reject);
        probe.listen(0, '127.0.0.1', () => {
            const { port } = probe.address();
            probe.close(() => resolve(port));
        });
    });
}

function listening(port, seconds) {
    const until = Date.now() + seconds * 1000;
    return new Promise((resolve, reject) => {
        const attempt = () => {
            const probe = net.connect(port, '127.0.0.1');
            probe.once('connect', () => { probe.destroy(); resolve(); });
            probe.once('error', () => {
                probe.destroy();
                if (Date.now() > until) reject(new Error(`nothing listened on port ${port} within ${seconds} s`));
                else setTimeout(attempt, 100);
            });
        };
        attempt();
    });
}

async function vitePreview(port) {
    const vite = await importPackage('vite');
    await vite.preview({ root: dir, logLevel: 'warn', preview: { host: '127.0.0.1', port, strictPort: true, open: false } });
}

/* Where the servers that read their address from the environment listen (the serve
 * CLIs read PORT and HOST, Nitro also NITRO_PORT and NITRO_HOST). */
function listenAt(port) {
    process.env.PORT = process.env.NITRO_PORT = String(port);
    process.env.HOST = process.env.NITRO_HOST = '127.0.0.1';
}

/* A package's CLI server run here, as `<bin> <entry>` would run it (PORT and HOST from
 * the environment, as both CLIs read them). */
async function cliServer(pkg, bin, port) {
    const file = path.join(dir, 'node_modules', ...pkg.split('/'), bin);
    if (!fs.existsSync(file)) {
        fail(`the app does not install ${pkg}, whose server (${bin}) serves its build`);
    }
    listenAt(port);
    process.argv = [process.argv[0], file, path.resolve(dir, entry)];
    await import(pathToFileURL(file).href);
}

/* A server build's entry that listens when imported (Nitro's .output/server/index.mjs:
 * Nuxt), on the port and host its environment names. */
async function listeningEntry(port) {
    listenAt(port);
    await import(pathToFileURL(path.resolve(dir, entry)).href);
}

const PORT_SERVERS = {
    nuxt: (port) => listeningEntry(port),
    'solid-start': (port) => listeningEntry(port),
    sveltekit: (port) => vitePreview(port),
    qwik: (port) => vitePreview(port),
    'react-router': (port) => cliServer('@react-router/serve', 'dist/cli.js', port),
    remix: (port) => cliServer('@remix-run/serve', 'dist/cli.js', port),
};

/* The socket bridged to the app's server on ``port``, byte for byte. */
function bridge(port) {
    return net.createServer((inbound) => {
        const outbound = net.connect(port, '127.0.0.1');
        inbound.pipe(outbound).pipe(inbound);
        const end = () => { inbound.destroy(); outbound.destroy(); };
        inbound.on('error', end);
        outbound.on('error', end);
        inbound.on('close', end);
        outbound.on('close', end);
    });
}

function handlerServer(handler) {
    return http.createServer((req, res) => {
        Promise.resolve(handler(req, res)).catch((error) => {
            process.stderr.write(`iwc-server: request ${req.method} ${req.url} failed: ${error && error.stack}\n`);
            if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' });
            res.end('internal server error\n');
        });
    });
}

function coverageServer() {
    fs.rmSync(`${socketPath}.coverage`, { force: true });
    net.createServer((socket) => {
        socket.on('error', () => socket.destroy());
        socket.end(JSON.stringify(globalThis.__coverage__ || {}));
    }).listen(`${socketPath}.coverage`);
}

async function main() {
    let server;
    if (framework === 'next') server = handlerServer(await nextHandler());
    else if (framework === 'astro') server = handlerServer(await astroHandler());
    else if (PORT_SERVERS[framework]) {
        const port = await freePort();
        await PORT_SERVERS[framework](port);
        await listening(port, 50);
        server = bridge(port);
    } else fail(`no server for framework ${framework}`);
    coverageServer();
    fs.rmSync(socketPath, { force: true });
    server.on('error', (error) => fail(`cannot listen on ${socketPath}: ${error.message}`));
    server.listen(socketPath, () => process.stdout.write('iwc-server: listening\n'));
    const stop = () => server.close(() => process.exit(0));
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
    // Our serving process is the parent (unshare and sh exec into node); when it is gone
    // (killed outright, the parent-death signal lost with the namespace), so are we.
    const parent = process.ppid;
    setInterval(() => {
        if (process.ppid !== parent) process.exit(0);
    }, 1000).unref();
}

main().catch((error) => fail(`the app's server did not start: ${(error && error.stack) || error}`));
