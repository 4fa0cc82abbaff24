/*
 * Where Istanbul put its counters in instrumented code, for crediting coverage only
 * where V8 saw the code run (stages/exploring/crediting.py, kits/devtools.py).
 *
 * sitesOf(code, key) -> { sha256, s: {id: [offset]}, f: {id: [offset]}, b: {id: [[offset], ...]} }
 * A key whose counters sit in several scripts (a page's handler attributes) has a list
 * of these, one per script.
 * `code` is exactly the text the browser runs (V8's script source); offsets are its
 * UTF-16 indices, as V8's coverage ranges are. `sha256` is V8's script hash (SHA-256
 * of the text as UTF-8), which tells the genuine script from any copy a page evals.
 * Only increments of this file's own counter function are sites — named as Istanbul
 * names it, from the coverage key (`cov_` + the first 12 hex digits of the key's SHA-1
 * in base 36), never as the code says: a page could put a look-alike first. A counter
 * with more than one site (the app's source spelled one out) is credited only if all
 * of them ran. No sites at all when the name is not in the code (fail closed).
 *
 * builtSitesOf(code, keys) -> { key: sites } does the same for a bundle a framework
 * build wrote (building.py): one script holds the counters of many source files, and
 * the bundler's minifier renamed each counter function. The counter is the function
 * that declares the key as its first variable, the way Istanbul's preamble begins
 * (`function M(){var S="src/App.jsx",...`), and its sites are the references Babel
 * binds to it; a key declared by no function has no sites (fail closed). Run as a
 * script, it reads {tools, files: [abs], keys, sites: out} on stdin and writes the
 * sites of every key found to `sites` (first file wins). Offsets are UTF-16 indices
 * of the file's text, as V8's are.
 */
'use strict';

const crypto = require('crypto');

const INCREMENT = /\b(cov_[A-Za-z0-9_$]+)\(\)\.([sfb])\[(\d+)\](?:\[(\d+)\])?\+\+/g;

function counterName(key) {
    // istanbul-lib-instrument's genVar(filename); instrument.js passes the key as filename.
    const hex = crypto.createHash('sha1').update(key).digest('hex');
    return 'cov_' + parseInt(hex.substr(0, 12), 16).toString(36);
}

function sha256(code) {
    return crypto.createHash('sha256').update(code, 'utf8').digest('hex');
}

function sitesOf(code, key) {
    const own = counterName(key);
    const found = { sha256: sha256(code), s: {}, f: {}, b: {} };
    if (!code.includes('function ' + own + '(){')) return found;
    return collect(code, INCREMENT, own, found);
}

/* Sites of `key` in one of a page's handler attributes: V8 runs each as a script of
 * its own (the attribute's text), calling the counter function the page's first
 * script declares. */
function handlerSitesOf(code, key) {
    return collect(code, INCREMENT, counterName(key), { sha256: sha256(code), s: {}, f: {}, b: {} });
}

function collect(code, pattern, own, found) {
    for (const m of code.matchAll(pattern)) {
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

/* The key a function declaration is Istanbul's counter for: its body starts the way
 * Istanbul's preamble does, a variable holding the coverage key. */
function counterKey(node, keys) {
    const first = node.body.body[0];
    if (node.params.length || !first || first.type !== 'VariableDeclaration') return null;
    const init = first.declarations[0] && first.declarations[0].init;
    // Oxc's minifier (Vite 8) writes the key as a template literal: `src/App.vue`
    const text = !init ? null
        : init.type === 'StringLiteral' ? init.value
            : init.type === 'TemplateLiteral' && !init.expressions.length ? init.quasis[0].value.cooked : null;
    return text !== null && keys.has(text) ? text : null;
}

/* `NAME().s[3]++` (or `++NAME().s[3]`): the increment a reference to a counter is in,
 * as [kind, id, arm | undefined, offset], or null. */
function incrementAt(ref) {
    const call = ref.parentPath;
    if (!call || !call.isCallExpression() || call.node.callee !== ref.node || call.node.arguments.length) return null;
    const kind = call.parentPath;
    if (!kind.isMemberExpression() || kind.node.computed || kind.node.object !== call.node) return null;
    const name = kind.node.property.name;
    if (!['s', 'f', 'b'].includes(name)) return null;
    let at = kind.parentPath;
    if (!at.isMemberExpression() || !at.node.computed || at.node.property.type !== 'NumericLiteral') return null;
    const id = at.node.property.value;
    let arm;
    if (name === 'b') {
        const inner = at.parentPath;
        if (!inner.isMemberExpression() || !inner.node.computed || inner.node.property.type !== 'NumericLiteral') return null;
        arm = inner.node.property.value;
        at = inner;
    }
    const update = at.parentPath;
    if (!update.isUpdateExpression() || update.node.operator !== '++') return null;
    return [name, String(id), arm, ref.node.start];
}

/* Sites of every key of `keys` whose counter function is declared in `code`, a bundle.
 * A minifier renames the counter functions and gives those of different modules the
 * same short name in different scopes, so the increments are the references Babel's
 * scope analysis binds to each counter's declaration, never a name match. */
function builtSitesOf(code, keys, babel) {
    const wanted = new Set(keys.filter((k) => code.includes(k)));
    if (!wanted.size) return {};
    let ast;
    try {
        ast = babel.parser.parse(code, { sourceType: 'unambiguous', errorRecovery: true, allowReturnOutsideFunction: true });
    } catch {
        return {};
    }
    const digest = sha256(code);
    const found = {};
    babel.traverse(ast, {
        FunctionDeclaration(fn) {
            const key = counterKey(fn.node, wanted);
            if (key === null || key in found || !fn.node.id) return;
            const binding = fn.parentPath.scope.getBinding(fn.node.id.name);
            if (!binding || binding.path !== fn) return;
            const sites = { sha256: digest, s: {}, f: {}, b: {} };
            for (const ref of binding.referencePaths) {
                const inc = incrementAt(ref);
                if (inc === null) continue;
                const [kind, id, arm, offset] = inc;
                if (kind === 'b') {
                    const arms = (sites.b[id] = sites.b[id] || []);
                    (arms[arm] = arms[arm] || []).push(offset);
                } else {
                    (sites[kind][id] = sites[kind][id] || []).push(offset);
                }
            }
            for (const arms of Object.values(sites.b)) {
                for (let i = 0; i < arms.length; i++) arms[i] = arms[i] || [];
            }
            found[key] = sites;
        },
    });
    return found;
}

function main() {
    const fs = require('fs');
    const job = JSON.parse(fs.readFileSync(0, 'utf8'));
    const tools = require('module').createRequire(require('path').join(job.tools, 'iwc-tools.js'));
    const babel = { parser: tools('@babel/parser'), traverse: tools('@babel/traverse').default };
    const sites = {};
    for (const file of job.files) {
        let code;
        try {
            code = fs.readFileSync(file, 'utf8');
        } catch {
            continue;
        }
        if (code.startsWith('\uFEFF')) code = code.slice(1);
        const missing = job.keys.filter((k) => !(k in sites));
        Object.assign(sites, builtSitesOf(code, missing, babel));
    }
    fs.writeFileSync(job.sites, JSON.stringify(sites));
    process.stdout.write(JSON.stringify({ keys: Object.keys(sites).length }));
}

module.exports = { sitesOf, builtSitesOf, handlerSitesOf };

if (require.main === module) main();
