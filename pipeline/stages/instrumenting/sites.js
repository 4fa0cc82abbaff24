/*
 * Where Istanbul put its counters in instrumented code, for crediting coverage only
 * where V8 saw the code run (stages/exploring/crediting.py, kits/devtools.py).
 *
 * sitesOf(code) -> { sha256, s: {id: [offset]}, f: {id: [offset]}, b: {id: [[offset], ...]} }
 * `code` is exactly the text the browser runs (V8's script source); offsets are its
 * UTF-16 indices, as V8's coverage ranges are. `sha256` is V8's script hash (SHA-256
 * of the text as UTF-8), which tells the genuine script from any copy a page evals.
 * Only increments of this file's own counter function are sites; a counter with more
 * than one site (the app's source spelled one out) is credited only if all of them ran.
 */
'use strict';

const crypto = require('crypto');

const OWN = /^function (cov_[A-Za-z0-9_$]+)\(\)\{/;
const INCREMENT = /\b(cov_[A-Za-z0-9_$]+)\(\)\.([sfb])\[(\d+)\](?:\[(\d+)\])?\+\+/g;

function sitesOf(code) {
    const own = OWN.exec(code);
    const found = { sha256: crypto.createHash('sha256').update(code, 'utf8').digest('hex'), s: {}, f: {}, b: {} };
    if (!own) return found;
    for (const m of code.matchAll(INCREMENT)) {
        if (m[1] !== own[1]) continue;
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
