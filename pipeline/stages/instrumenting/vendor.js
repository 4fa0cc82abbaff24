/*
 * Which of a script's code is vendored (a library the app ships) rather than the
 * app's own, so coverage can be reported for the app's own code.
 *
 * Two signs, in this order:
 *   - a source map (an inline data: URL or a file next to the script): every
 *     statement, function and branch is looked up in it, and those whose original
 *     source is under node_modules/ (or a bundler's runtime) are vendored;
 *   - a library banner at the top of the file ("/*! jQuery v3.7.1 …", "@license",
 *     "Released under the MIT License"): the whole file is vendored.
 * Used by instrument.js; it reads, never writes, and never throws for an app's file.
 *
 * Result: null (all the app's own) or
 *   { reason, s: [ids], f: [ids], b: [ids] }   the vendored counter ids of the file
 */
'use strict';

const fs = require('fs');
const path = require('path');

// (\x00: Rollup's prefix of a virtual module's id)
// eslint-disable-next-line no-control-regex -- the NUL is the point
const VENDORED_SOURCE = /(^|[/\\])(node_modules|bower_components|jspm_packages)[/\\]|webpack[/\\](runtime|bootstrap)|\(webpack\)|^\/?\(?vite\/|vite[/\\](preload-helper|modulepreload-polyfill)|commonjsHelpers|\x00/;
const BANNER_HEAD = 1500; // characters of the file searched for a banner
const LIBRARIES = /\b(jquery|react|react-dom|vue|angular|lodash|underscore|bootstrap|chart\.js|d3|three\.js|three|phaser|pixi|gsap|moment|axios|leaflet|anime\.js|p5\.js|p5|tailwind|alpine|preact|svelte|zone\.js|rxjs|core-js|regenerator|babel|tslib|hammer|howler|matter\.js|konva|fabric|highlight\.js|marked|dompurify|luxon|dayjs|immutable)\b/i;

function mapComment(code) {
    const match = /\/\/[#@]\s*sourceMappingURL=([^\s'"]+)\s*$/m.exec(code.slice(-4096));
    return match ? match[1] : null;
}

function readMap(url, file, root) {
    try {
        if (url.startsWith('data:')) {
            const comma = url.indexOf(',');
            const meta = url.slice(5, comma);
            const body = url.slice(comma + 1);
            const text = /;base64/i.test(meta) ? Buffer.from(body, 'base64').toString('utf8') : decodeURIComponent(body);
            return JSON.parse(text);
        }
        if (/^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith('//')) return null; // remote: not fetched
        const target = path.resolve(path.dirname(file), decodeURIComponent(url.split(/[?#]/)[0]));
        if (!target.startsWith(path.resolve(root) + path.sep)) return null;
        return JSON.parse(fs.readFileSync(target, 'utf8'));
    } catch {
        return null;
    }
}

function banner(code) {
    const head = code.slice(0, BANNER_HEAD);
    const comment = /^\s*(?:'use strict';?\s*)?(\/\*[\s\S]*?\*\/|(?:\/\/[^\n]*\n\s*)+)/.exec(head);
    if (!comment) return null;
    const text = comment[1];
    const named = LIBRARIES.exec(text);
    const licensed = /@license|@preserve|Released under the|Licensed under|MIT License|\bBSD\b|Apache License/i.test(text);
    const loud = text.startsWith('/*!');
    const version = /\bv?\d+\.\d+\.\d+\b/.test(text);
    if ((licensed || loud) && (named || version)) {
        const first = text.split('\n').map((l) => l.replace(/^\s*(\/\*!?|\*\/|\*|\/\/)\s*/, '').replace(/\*\/\s*$/, '').trim())
            .find((l) => l.length > 0);
        const label = (first || (named ? named[1] : 'a library')).slice(0, 60);
        return `library banner (${label})`;
    }
    return null;
}

function vendored(code, fc, file, root, traceMapping) {
    const url = mapComment(code);
    const map = url ? readMap(url, file, root) : null;
    if (map && Array.isArray(map.sources) && map.mappings) {
        let traced;
        try {
            traced = new traceMapping.TraceMap(map);
        } catch {
            traced = null;
        }
        if (traced) {
            const isVendored = (loc) => {
                if (!loc || !loc.start || !loc.start.line) return false;
                const found = traceMapping.originalPositionFor(traced, { line: loc.start.line, column: loc.start.column || 0 });
                return Boolean(found && found.source && VENDORED_SOURCE.test(found.source));
            };
            const pick = (entries, where) => Object.entries(entries).filter(([, e]) => isVendored(where(e))).map(([id]) => id);
            const s = pick(fc.statementMap, (e) => e);
            const f = pick(fc.fnMap, (e) => e.loc);
            const b = pick(fc.branchMap, (e) => e.loc);
            if (!s.length && !f.length && !b.length) return null;
            const total = Object.keys(fc.fnMap).length;
            return { reason: `source map: ${f.length} of ${total} functions come from node_modules or the bundler`, s, f, b };
        }
    }
    const found = banner(code);
    if (found) {
        return { reason: found, s: Object.keys(fc.statementMap), f: Object.keys(fc.fnMap), b: Object.keys(fc.branchMap) };
    }
    return null;
}

module.exports = { vendored, banner };
