/*
 * Istanbul on one module's source as written (JSX and TypeScript parsed by Babel), for
 * the bundler hooks that run before the framework's own compiler: the Vite plugin
 * (Vite, Astro) and the webpack loader (Next.js). Statement locations are lines of the
 * original file; the coverage key is the file's path relative to the app's root; the
 * initial coverage and the source are recorded (recording.cjs). It must not decide
 * which bundler output is served.
 */
'use strict';

const fs = require('fs');

const recording = require('./recording.cjs');

const { createInstrumenter } = recording.tool('istanbul-lib-instrument');

const EXTENSIONS = /\.(m?jsx?|cjs|tsx?|mts|cts)$/;

function parserPlugins(file) {
    const plugins = ['importAttributes', 'decorators-legacy', 'classProperties',
        'topLevelAwait', 'dynamicImport'];
    if (/\.[mc]?ts$/.test(file)) {
        plugins.push('typescript'); // no 'jsx': `<T>x` is a cast in a .ts file
    } else if (/\.tsx$/.test(file)) {
        plugins.push('typescript', 'jsx');
    } else {
        plugins.push('jsx');
    }
    return plugins;
}

/* The coverage key of a module id, or null when it is not the app's own source: a
 * dependency's, or a module a plugin made up under the app's folder (Qwik's optimizer
 * names the segments it cuts out of a component `src/s_<hash>.js`: their code is the
 * component's, counted there), which is no file. */
function keyOf(root, id) {
    const file = id ? picked(id) : id;
    if (!file || file.startsWith('\0') || file.includes('?') || !EXTENSIONS.test(file) || !fs.existsSync(file)) {
        return null;
    }
    return recording.ownKey(root, file);
}

/* The file of a module id that picks some of a file's exports (`route.tsx?pick=default`:
 * Vinxi's file router, SolidStart's routes): the file's code, the same counters whichever
 * exports a build keeps. Any other query: the id itself (not a source file). */
function picked(id) {
    const at = id.indexOf('?');
    if (at < 0) {
        return id;
    }
    const query = id.slice(at + 1).split('&');
    return query.every((part) => part.startsWith('pick=')) ? id.slice(0, at) : id;
}

/* {code, map} with counters, or null when the file is not the app's own or cannot be
 * instrumented. A file our parser cannot read (syntax that only one of the app's own
 * plugins understands) is recorded as skipped and passed through unchanged: the
 * framework's compiler then decides, and the rest of the app keeps its counters. */
function instrument(root, id, code) {
    const key = keyOf(root, id);
    if (key === null) {
        return null;
    }
    if (!asWritten(picked(id), code)) {
        // a plugin loaded it through its own compiler first (Qwik's optimizer cuts a
        // component's $() closures into modules of their own): its lines are not the
        // file's, and each build may compile it to other code
        recording.skip(key, 'a plugin of the app compiled it before the build step could count it '
            + '(its code is not the file as written)');
        return null;
    }
    try {
        return instrumentOwn(picked(id), key, code);
    } catch (error) {
        recording.skip(key, `could not parse: ${String(error.message || error).split('\n')[0]}`);
        return null;
    }
}

const plain = (text) => text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');

/* Whether the code a hook was given is the file as its author wrote it. */
function asWritten(file, code) {
    try {
        return plain(fs.readFileSync(file, 'utf8')) === plain(code);
    } catch {
        return true; // unreadable here: the bundler read it, as it is
    }
}

function instrumentOwn(id, key, code) {
    const instrumenter = createInstrumenter({
        esModules: true,
        compact: false,
        produceSourceMap: true,
        autoWrap: true,
        coverageVariable: '__coverage__',
        coverageGlobalScope: 'globalThis',
        coverageGlobalScopeFunc: false,
        parserPlugins: parserPlugins(id),
    });
    const instrumented = instrumenter.instrumentSync(code, key);
    recording.record(key, instrumenter.lastFileCoverage(), code);
    const map = instrumenter.lastSourceMap();
    if (map) {
        map.sources = [id];
        map.sourcesContent = [code];
    }
    return { code: instrumented, map: map || null };
}

module.exports = { instrument, keyOf, parserPlugins };
