#!/usr/bin/env node
/*
 * Istanbul instrumentation of one app's copy, in ONE Node process.
 *
 * Reads a JSON job on stdin, instruments the app folder in place, writes the initial
 * file-coverage objects and the original sources next to it, and prints a JSON result
 * on stdout. Driven by pipeline/stages/instrumenting.py; it must not decide anything
 * about frameworks, entry pages or modes (Python does), and must never touch a file
 * outside job.root.
 *
 * Job (stdin):
 *   { "tools": "<node_modules dir>", "root": "<app copy>", "maxFileBytes": 5000000,
 *     "pages":   ["index.html", ...],                      HTML pages, relative to root
 *     "scripts": [{"path": "app.js", "skip": null | "why", "soft": bool}, ...],
 *     "coverageMap": "<file>", "sources": "<file>",         where to write the maps
 *     "facts": "<file>",                                    the explorer's code facts (facts.js)
 *     "originals": "<dir>",                                 where each rewritten file's original goes
 *     "vendored": "<file>" }                                vendored counter ids per key (vendor.js)
 * A script with "soft": true is skipped only when no page references it.
 *
 * Result (stdout):
 *   { "files":   [{"path", "kind", "statements", "functions", "branches"}],
 *     "skipped": [{"path", "reason"}] }
 *
 * Coverage keys: a file's path relative to root ("js/app.js"); the N-th inline
 * JavaScript block of a page (1-based, document order) is "<page>#inline-N"; a
 * page's inline event-handler attributes together are "<page>#handlers" (handlers.js).
 * Inline blocks and handlers are instrumented with their page's line offsets, so the
 * locations in the coverage map are lines of the HTML page.
 */
'use strict';

const fs = require('fs');
const path = require('path');
const Module = require('module');
const { sitesOf, handlerSitesOf } = require('./sites');

// HTML's JavaScript MIME type essences, plus "module". Anything else (JSON,
// importmap, text/babel, templates) is data, not code the browser runs.
const CLASSIC_TYPES = new Set([
    '', 'text/javascript', 'application/javascript', 'application/ecmascript',
    'application/x-ecmascript', 'application/x-javascript', 'text/ecmascript',
    'text/javascript1.0', 'text/javascript1.1', 'text/javascript1.2', 'text/javascript1.3',
    'text/javascript1.4', 'text/javascript1.5', 'text/jscript', 'text/livescript',
    'text/x-ecmascript', 'text/x-javascript'
]);

function readStdin() {
    return fs.readFileSync(0, 'utf8');
}

/* Text of a file and how to write it back byte-exactly: UTF-8 when it decodes, else
 * latin1 (a 1:1 byte mapping, so untouched bytes survive the round trip). */
function decode(buf) {
    try {
        const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(buf);
        return { text, encoding: 'utf8' };
    } catch {
        return { text: buf.toString('latin1'), encoding: 'latin1' };
    }
}

function writeAtomically(file, text, encoding) {
    // A new inode: the copy may share inodes with the source (hard links), which must
    // never change.
    const tmp = file + '.iwc-tmp';
    fs.writeFileSync(tmp, Buffer.from(text, encoding));
    fs.renameSync(tmp, file);
}

/* Keep the file as it was before its first rewrite (the explorer falls back to it
 * when the instrumented app does not load). */
function keepOriginal(job, rel, buf) {
    if (!job.originals) return;
    const target = path.join(job.originals, rel);
    if (fs.existsSync(target)) return;
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, buf);
}

function attr(node, name) {
    for (const a of node.attrs || []) {
        if (a.name === name) return a.value;
    }
    return null;
}

function scriptKind(node) {
    const raw = attr(node, 'type');
    const type = raw === null ? '' : raw.trim().toLowerCase();
    if (type === 'module') return 'module';
    if (CLASSIC_TYPES.has(type)) return 'classic';
    return null;
}

function collectScripts(node, out) {
    if (node.nodeName === 'script') out.push(node);
    for (const child of node.childNodes || []) collectScripts(child, out);
    if (node.content) collectScripts(node.content, out); // <template> contents
}

/* Where a page's src points inside root, or null (remote, data:, outside root). */
function resolveSrc(root, page, src) {
    const value = src.trim();
    if (!value || /^[a-z][a-z0-9+.-]*:/i.test(value) || value.startsWith('//')) return null;
    let clean = value.split('#')[0].split('?')[0];
    try {
        clean = decodeURIComponent(clean);
    } catch {
        return null;
    }
    const base = clean.startsWith('/') ? '' : path.posix.dirname(page);
    const rel = path.posix.normalize(path.posix.join(base, clean)).replace(/^\/+/, '');
    if (rel.startsWith('..') || rel === '.' || rel === '') return null;
    return rel;
}

function lineBreaksBefore(text, offset) {
    // Babel's line terminators, so padded locations match the page's lines.
    const head = text.slice(0, offset);
    const breaks = head.match(/\r\n|[\n\r\u2028\u2029]/g);
    const lastBreak = Math.max(head.lastIndexOf('\n'), head.lastIndexOf('\r'),
        head.lastIndexOf('\u2028'), head.lastIndexOf('\u2029'));
    return { lines: breaks ? breaks.length : 0, column: offset - lastBreak - 1 };
}

function parseMessage(err, filename) {
    let msg = String((err && err.message) || err).split('\n')[0];
    const prefix = path.resolve(filename) + ': ';
    if (msg.startsWith(prefix)) msg = msg.slice(prefix.length);
    return msg.length > 300 ? msg.slice(0, 300) + '…' : msg;
}

/*
 * Istanbul embeds the whole coverage map (statement, function and branch locations)
 * in every instrumented file; the page only needs the counters. The map is already
 * in coverage-map.json, so the served code keeps path, counters, schema and hash:
 * about half the bytes, and the page parses and runs less at load. Returns the code
 * unchanged when Istanbul's output does not look as expected.
 */
function slim(code, fc) {
    const head = /^function cov_[\w$]+\(\)\{var path=("(?:[^"\\]|\\.)*");var hash="([0-9a-f]+)";/.exec(code);
    if (!head) return code;
    const start = code.indexOf('var coverageData={');
    const tail = `",hash:"${head[2]}"};var coverage=global[gcv]`;
    const end = code.indexOf(tail, start);
    if (start < 0 || end < 0) return code;
    const schema = /_coverageSchema:"([0-9a-f]+)$/.exec(code.slice(start, end));
    if (!schema) return code;
    const data = `var coverageData={path:${head[1]},s:${JSON.stringify(fc.s)},f:${JSON.stringify(fc.f)},` +
        `b:${JSON.stringify(fc.b)},_coverageSchema:"${schema[1]}",hash:"${head[2]}"};`;
    return code.slice(0, start) + data + code.slice(end + tail.length - 'var coverage=global[gcv]'.length);
}

function counts(fc, library) {
    let branches = 0;
    let ownBranches = 0;
    const libraryBranches = new Set(library ? library.b : []);
    for (const [bid, arms] of Object.entries(fc.b)) {
        branches += arms.length;
        if (!libraryBranches.has(bid)) ownBranches += arms.length;
    }
    const total = {
        statements: Object.keys(fc.statementMap).length,
        functions: Object.keys(fc.fnMap).length,
        branches
    };
    if (!library) return total;
    return {
        ...total,
        vendored: library.reason,
        own_statements: total.statements - library.s.length,
        own_functions: total.functions - library.f.length,
        own_branches: ownBranches
    };
}

function main() {
    const job = JSON.parse(readStdin());
    const run = {
        job, tools: loadTools(job), root: job.root, maxBytes: job.maxFileBytes,
        files: [], skipped: [], coverageMap: {}, sources: {}, sites: {}, facts: {}, vendoredIds: {}
    };
    // 1. Pages: inline blocks, and which files they load as classic or module scripts.
    const referenced = new Map(); // rel path -> 'classic' | 'module' | 'nomodule'
    for (const page of job.pages) instrumentPage(run, page, referenced);
    // 2. Script files: those the Python side listed, plus files pages load that it did
    // not list (unusual extensions); node_modules and .git stay untouched.
    for (const script of scriptFiles(run, referenced).values()) instrumentFile(run, script, referenced.get(script.path));
    fs.mkdirSync(path.dirname(job.coverageMap), { recursive: true });
    fs.writeFileSync(job.coverageMap, JSON.stringify(run.coverageMap));
    fs.writeFileSync(job.sources, JSON.stringify(run.sources));
    if (job.sites) fs.writeFileSync(job.sites, JSON.stringify(run.sites));
    if (job.facts) fs.writeFileSync(job.facts, JSON.stringify(run.facts));
    if (job.vendored) fs.writeFileSync(job.vendored, JSON.stringify(run.vendoredIds));
    process.stdout.write(JSON.stringify({ files: run.files, skipped: run.skipped }));
}

/* The tools from job.tools, and Istanbul's two instrumenters (classic script, module). */
function loadTools(job) {
    const toolsRequire = Module.createRequire(path.join(job.tools, 'iwc-tools.js'));
    const { createInstrumenter } = toolsRequire('istanbul-lib-instrument');
    const parse5 = toolsRequire('parse5');
    const babelParser = toolsRequire('@babel/parser');
    const { codeFacts } = require('./facts.js');
    const { instrumentHandlers } = require('./handlers.js');
    const { vendored } = require('./vendor.js');
    const traceMapping = toolsRequire('@jridgewell/trace-mapping');
    const common = {
        coverageVariable: '__coverage__',
        produceSourceMap: false,
        compact: true,
        preserveComments: false,
        // `globalThis` is the page's window in classic and module scripts alike, and
        // (unlike Istanbul's default `new Function("return this")`) it works under a
        // Content-Security-Policy that forbids eval.
        coverageGlobalScope: 'globalThis',
        coverageGlobalScopeFunc: false
    };
    const asScript = createInstrumenter({ ...common, esModules: false });
    const asModule = createInstrumenter({ ...common, esModules: true });
    return { asScript, asModule, parse5, babelParser, codeFacts, instrumentHandlers, vendored, traceMapping };
}

/* Instrument `code` under coverage key `key`; 'auto' tries a classic script first,
 * then a module (import/export/top-level await). Returns the new code or null. */
function instrument(run, code, key, kind) {
    const { asScript, asModule, babelParser, codeFacts } = run.tools;
    const attempts = kind === 'module' ? [asModule] : kind === 'classic' ? [asScript] : [asScript, asModule];
    let firstError = null;
    for (const inst of attempts) {
        try {
            const raw = inst.instrumentSync(code, key);
            const fc = inst.lastFileCoverage();
            const out = slim(raw, fc);
            run.coverageMap[key] = fc;
            const found = codeFacts(code, fc, babelParser, inst === asModule ? 'module' : 'script');
            if (found) run.facts[key] = found;
            return { code: out, fc, module: inst === asModule };
        } catch (err) {
            if (firstError === null) firstError = err;
        }
    }
    run.skipped.push({ path: key, reason: 'could not parse: ' + parseMessage(firstError, key) });
    return null;
}

/* One page: its inline blocks and event-handler attributes instrumented in place, the
 * files it loads noted in `referenced`. */
function instrumentPage(run, page, referenced) {
    const { root, maxBytes, skipped } = run;
    const abs = path.join(root, page);
    let buf;
    try {
        buf = fs.readFileSync(abs);
    } catch (err) {
        skipped.push({ path: page, reason: 'could not read the page: ' + err.code });
        return;
    }
    if (buf.length > maxBytes) {
        skipped.push({ path: page, reason: `page is ${buf.length} bytes (over ${maxBytes}); its inline scripts are not instrumented` });
        return;
    }
    const { text, encoding } = decode(buf);
    let doc;
    try {
        doc = run.tools.parse5.parse(text, { sourceCodeLocationInfo: true });
    } catch (err) {
        skipped.push({ path: page, reason: 'could not parse the page: ' + parseMessage(err, page) });
        return;
    }
    const scripts = [];
    collectScripts(doc, scripts);
    const here = { page, abs, text, edits: [], inlineIndex: 0 };
    for (const node of scripts) {
        const kind = scriptKind(node);
        if (kind === null) continue;
        const nomodule = attr(node, 'nomodule') !== null && kind === 'classic';
        const src = attr(node, 'src');
        if (src !== null) noteReference(referenced, resolveSrc(root, page, src), nomodule ? 'nomodule' : kind);
        else inlineScript(run, here, node, kind, nomodule);
    }
    pageHandlers(run, here, doc);
    const { edits } = here;
    // (an insertion — start equal to end — goes before an edit starting there)
    edits.sort((a, b) => a.start - b.start || (a.end - a.start) - (b.end - b.start));
    if (edits.length) {
        let outText = '';
        let cursor = 0;
        for (const e of edits) {
            outText += text.slice(cursor, e.start) + e.code;
            cursor = e.end;
        }
        outText += text.slice(cursor);
        keepOriginal(run.job, page, buf);
        writeAtomically(abs, outText, encoding);
    }
}

/* A page loads the file at `rel` (null: not inside root) as `now`. */
function noteReference(referenced, rel, now) {
    if (rel === null) return;
    const before = referenced.get(rel);
    // A file some page loads as a module is a module; a nomodule fallback
    // only counts when nothing else loads the file.
    if (before === undefined || before === 'nomodule' || now === 'module') referenced.set(rel, now);
}

/* An inline <script> of the page (`here`): instrumented, its edit added to here.edits. */
function inlineScript(run, here, node, kind, nomodule) {
    const { text, page, abs } = here;
    const loc = node.sourceCodeLocation;
    if (!loc || !loc.startTag) return;
    here.inlineIndex += 1;
    const key = `${page}#inline-${here.inlineIndex}`;
    const start = loc.startTag.endOffset;
    const end = loc.endTag ? loc.endTag.startOffset : text.length;
    const code = text.slice(start, end);
    if (!code.trim()) return;
    if (nomodule) {
        run.skipped.push({ path: key, reason: 'nomodule script: modern browsers do not run it' });
        return;
    }
    if (end - start > run.maxBytes) {
        run.skipped.push({ path: key, reason: `inline script is ${end - start} characters (over ${run.maxBytes})` });
        return;
    }
    // Pad to the block's place in the page so coverage locations are page lines.
    const at = lineBreaksBefore(text, start);
    const padded = '\n'.repeat(at.lines) + ' '.repeat(at.column) + code;
    const done = instrument(run, padded, key, kind);
    if (done === null) return;
    run.sources[key] = padded;
    const library = run.tools.vendored(code, done.fc, abs, run.root, run.tools.traceMapping);
    if (library) run.vendoredIds[key] = library;
    // `</script` inside the output would end the block early; `<\/` means the
    // same inside strings, templates, regexes and comments.
    const safe = done.code.replace(/<\/(script)/gi, '<\\/$1');
    here.edits.push({ start, end, code: safe });
    // The browser's HTML parser turns CR and CRLF into LF before the script sees them.
    run.sites[key] = sitesOf(safe.replace(/\r\n?/g, '\n'), key);
    run.files.push({ path: key, kind: kind === 'module' ? 'inline-module' : 'inline', ...counts(done.fc, library) });
}

/* The page's inline event-handler attributes, together under "<page>#handlers". */
function pageHandlers(run, here, doc) {
    const { asScript, babelParser, codeFacts, instrumentHandlers } = run.tools;
    const handlers = instrumentHandlers(here.page, doc, asScript, babelParser, slim);
    if (!handlers) return;
    run.coverageMap[handlers.key] = handlers.fc;
    run.sources[handlers.key] = handlers.source;
    const found = codeFacts(handlers.source, handlers.fc, babelParser, 'script');
    if (found) run.facts[handlers.key] = found;
    here.edits.push(...handlers.edits);
    // (the HTML parser turns CR and CRLF into LF in attributes too)
    run.sites[handlers.key] = handlers.scripts.map((code) => handlerSitesOf(code.replace(/\r\n?/g, '\n'), handlers.key));
    run.files.push({ path: handlers.key, kind: 'handlers', ...counts(handlers.fc) });
}

/* The script files to instrument, by path: the job's, then those pages load that it did not list. */
function scriptFiles(run, referenced) {
    const listed = new Map(run.job.scripts.map((s) => [s.path, s]));
    for (const rel of referenced.keys()) {
        if (listed.has(rel)) continue;
        if (/(^|\/)(node_modules|\.git|\.iwc)(\/|$)/.test(rel)) continue;
        let stat;
        try {
            stat = fs.statSync(path.join(run.root, rel));
        } catch {
            continue; // a missing script is the page's problem; the explorer will see it
        }
        if (stat.isFile()) listed.set(rel, { path: rel, skip: null, soft: false });
    }
    return listed;
}

/* One script file, instrumented in place; `ref`: how pages load it (undefined: none does). */
function instrumentFile(run, script, ref) {
    const { skipped, maxBytes } = run;
    const rel = script.path;
    if (script.skip && !(script.soft && ref !== undefined && ref !== 'nomodule')) {
        skipped.push({ path: rel, reason: script.skip });
        return;
    }
    if (ref === 'nomodule') {
        skipped.push({ path: rel, reason: 'nomodule script: modern browsers do not run it' });
        return;
    }
    const abs = path.join(run.root, rel);
    let buf;
    try {
        buf = fs.readFileSync(abs);
    } catch (err) {
        skipped.push({ path: rel, reason: 'could not read: ' + err.code });
        return;
    }
    if (buf.length > maxBytes) {
        skipped.push({ path: rel, reason: `${buf.length} bytes (over ${maxBytes})` });
        return;
    }
    const { text, encoding } = decode(buf);
    const bom = text.startsWith('\uFEFF') ? '\uFEFF' : '';
    const code = bom ? text.slice(1) : text;
    if (!code.trim()) return;
    const kind = rel.endsWith('.mjs') || ref === 'module' ? 'module' : ref === 'classic' ? 'classic' : 'auto';
    const done = instrument(run, code, rel, kind);
    if (done === null) return;
    run.sources[rel] = code;
    const library = run.tools.vendored(code, done.fc, abs, run.root, run.tools.traceMapping);
    if (library) run.vendoredIds[rel] = library;
    keepOriginal(run.job, rel, buf);
    writeAtomically(abs, bom + done.code, encoding);
    run.sites[rel] = sitesOf(done.code, rel);
    run.files.push({ path: rel, kind: done.module ? 'module' : 'external', ...counts(done.fc, library) });
}

main();
