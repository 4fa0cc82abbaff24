/*
 * Where Istanbul put its counters in instrumented code, for crediting coverage only
 * where V8 saw the code run (stages/exploring/crediting.py, kits/devtools.py).
 *
 * sitesOf(code, key) -> { sha256, s: {id: [offset]}, f: {id: [offset]}, b: {id: [[offset], ...]} }
 * `code` is exactly the text the browser runs (V8's script source); offsets are its
 * UTF-16 indices, as V8's coverage ranges are. `sha256` is V8's script hash (SHA-256
 * of the text as UTF-8), which tells the genuine script from any copy a page evals.
 * Only increments of this file's own counter function are sites — named as Istanbul
 * names it, from the coverage key (`cov_` + the first 12 hex digits of the key's SHA-1
 * in base 36), never as the code says: a page could put a look-alike first. A counter
 * with more than one site (the app's source spelled one out) is credited only if all
 * of them ran. No sites at all when the name is not in the code (fail closed).
 */
'use strict';

const crypto = require('crypto');

const INCREMENT = /\b(cov_[A-Za-z0-9_$]+)\(\)\.([sfb])\[(\d+)\](?:\[(\d+)\])?\+\+/g;

function counterName(key) {
    // istanbul-lib-instrument's genVar(filename); instrument.js passes the key as filename.
    const hex = crypto.createHash('sha1').update(key).digest('hex');
    return 'cov_' + parseInt(hex.substr(0, 12), 16).toString(36);
}

function sitesOf(code, key) {
    const own = counterName(key);
    const found = { sha256: crypto.createHash('sha256').update(code, 'utf8').digest('hex'), s: {}, f: {}, b: {} };
    if (!code.includes('function ' + own + '(){')) return found;
    for (const m of code.matchAll(INCREMENT)) {
        if (m[1] !== own) continue;
        const [kind, id, arm] = [m[2], m[3], m[4]];
        if (kind === 'b') {
            if (arm === undefined) continue;
            const arms = (found.b[id] = found.b[id] || []);
            (arms[Number(arm)] = arms[Number(arm)] || []).push(m.index);
        } else {
            (found[kind][id] = found[kind][id] || []).push(m.index);
        }
    }
    for (const arms of Object.values(found.b)) {
        for (let i = 0; i < arms.length; i++) arms[i] = arms[i] || [];
    }
    return found;
}

module.exports = { sitesOf };
