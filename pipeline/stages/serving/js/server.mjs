/*
 * An app's own server, built by its framework (stages/instrumenting/building.py, a
 * server build), listening on a Unix domain socket: the serving stage proxies the
 * browser's requests to it (a namespaced server's loopback is not ours; a socket file
 * is reachable from both sides).
 *
 *   node server.mjs <framework> <app folder> <socket path> [<server entry>]
 *
 *   next    next({ dev: false, dir }).prepare(), then its request handler
 *   astro   the @astrojs/node adapter's dist/server/entry.mjs (auto-start off): its
 *           `handler`; in middleware mode the client files (dist/client) are served
 *           here first, as an Express app in front of it would
 *
 * Prints "iwc-server: listening" once the socket accepts connections; any failure to
 * start goes to stderr with exit status 3 (an app whose adapter is not @astrojs/node
 * says which adapter it has). It exits when its parent (our serving process) is gone.
 * It must not open any TCP port of its own.
 */
import fs from 'node:fs';
import http from 'node:http';
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
    // the client files of a middleware-mode Astro build; anything else: not handled
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
    if (built.options && built.options.mode === 'middleware') {
        const client = path.resolve(dir, 'dist', 'client');
        return (req, res) => {
            if (staticFile(client, req, res)) return;
            built.handler(req, res, () => {
                res.writeHead(404, { 'Content-Type': 'text/plain' });
                res.end('not found\n');
            });
        };
    }
    return (req, res) => built.handler(req, res);
}

async function main() {
    let handler;
    if (framework === 'next') handler = await nextHandler();
    else if (framework === 'astro') handler = await astroHandler();
    else fail(`no server for framework ${framework}`);
    fs.rmSync(socketPath, { force: true });
    const server = http.createServer((req, res) => {
        Promise.resolve(handler(req, res)).catch((error) => {
            process.stderr.write(`iwc-server: request ${req.method} ${req.url} failed: ${error && error.stack}\n`);
            if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' });
            res.end('internal server error\n');
        });
    });
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
