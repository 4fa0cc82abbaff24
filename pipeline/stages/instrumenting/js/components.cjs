/*
 * Istanbul on a component file's compiled script (.vue, .svelte, Astro's <script>
 * blocks), with every location mapped back to the file the author wrote.
 *
 * Babel cannot read a component file, so its counters go in after the framework's own
 * Vite plugin compiled it (the Vue and Svelte plugins, Astro's, hand JavaScript and a
 * source map to the next plugin). Before Istanbul walks the compiled program, each
 * node's location is replaced by the place it came from in the component file, through
 * the source map the bundler combined from every transform so far; a node that came
 * from no place in the file (the compiler's glue: `_defineComponent`, hoisted vnodes,
 * Svelte's runtime calls) has no location, and Istanbul counts only located nodes. So
 * statement and function locations are lines of the .vue/.svelte/.astro file (a
 * template handler's are the template's lines), the coverage key is that file's path in
 * the project, and the recorded source is the file as written. After Istanbul's pass
 * the compiled locations are put back, so the bundle's own source map stays right.
 *
 * A component compiles into more than one module in some frameworks: Astro gives each
 * <script> block of a page its own module (`?astro&type=script&index=N`), Vue may keep
 * a template's render function apart from its script. Each such module's counters need
 * their own key (one key is one counter object in the page): the first (Vue's script,
 * Astro's first block) takes the file's path, the others `<path>#<part>` — the way
 * static pages' inline blocks are `<page>#inline-N`. It must not decide which files
 * are the app's own (recording.ownKey does) nor instrument script files (instrumenting.cjs).
 */
'use strict';

const fs = require('fs');
const path = require('path');

const recording = require('./recording.cjs');

const { programVisitor } = recording.tool('istanbul-lib-instrument');

const COMPONENT = /\.(vue|svelte|astro)$/;

/* The coverage key of a module id when it is script compiled from one of the app's own
 * component files, else null (styles, raw imports, dependencies, generated files). */
function componentKey(root, id, code = '') {
    if (!id || id.startsWith('\0')) {
        return null;
    }
    const at = id.indexOf('?');
    const file = at < 0 ? id : id.slice(0, at);
    if (!COMPONENT.test(file)) {
        return null;
    }
    const key = recording.ownKey(root, file);
    if (key === null) {
        return null;
    }
    if (at < 0) {
        // Vue's main module imports the script from a module of its own when it is
        // TypeScript; what it keeps of its own then is the template's render function
        return file.endsWith('.vue') && code.includes(`${file}?vue&type=script`) ? `${key}#template` : key;
    }
    const query = new URLSearchParams(id.slice(at + 1));
    const type = query.get('type');
    if (query.has('vue') && type === 'script') {
        return key;
    }
    if (query.has('vue') && type === 'template') {
        return `${key}#template`;
    }
    if (query.has('astro') && type === 'script') {
        const index = Number(query.get('index') || 0);
        return index > 0 ? `${key}#script-${index + 1}` : key;
    }
    return null; // styles, ?raw, ?url, ?worker: not script of the component
}

function sameFile(src, file) {
    return !!src && (src === file || (path.isAbsolute(src) ? src : path.resolve(path.dirname(file), src)) === file);
}

const INLINE_MAP = /\/\/# sourceMappingURL=data:application\/json;(?:charset=utf-8;)?base64,([A-Za-z0-9+/=]+)\s*$/;

/* The source map a module's text carries inline at its end (Astro's <script> modules
 * do: the script's text, mapped to its place in the .astro file), or null. */
function inlineMap(text) {
    const found = typeof text === 'string' ? INLINE_MAP.exec(text) : null;
    if (!found) {
        return null;
    }
    try {
        return JSON.parse(Buffer.from(found[1], 'base64').toString('utf8'));
    } catch {
        return null;
    }
}

/* A place in the compiled code (line 1-based, column 0-based) in source `want` of the
 * traced map, or null when the code there came from elsewhere. `before`: when nothing
 * is mapped at or before the place on its line, the first mapped place after it and
 * before that column (a statement whose keyword the compiler did not map, Svelte's
 * `if (…)`, starts where its first mapped token does), or null. */
function traced(trace, tracer, want, line, column, before = -1, shift = true) {
    let segment = trace.traceSegment(tracer, line - 1, column);
    if (!segment && before > column) {
        const next = (trace.decodedMappings(tracer)[line - 1] || []).find((s) => s[0] >= column);
        segment = next && next[0] < before ? next : null;
        if (segment && segment.length >= 4 && segment[1] === want) {
            return { line: segment[2] + 1, column: segment[3] };
        }
    }
    if (!segment || segment.length < 4 || segment[1] !== want) {
        return null;
    }
    return { line: segment[2] + 1, column: segment[3] + (shift ? column - segment[0] : 0) };
}

/* The ways the bundler's combined map `inputMap` may lead to `file`: straight to it
 * (Vue, Svelte), to the file's own module id (`file?astro&type=script…`), and through
 * the map a module's text carries inline (Astro's scripts carry one; whether the
 * bundler already applied it depends on its version). Each is a function
 * (line, column) -> place in the file, or null. */
function ways(trace, inputMap, file) {
    const first = new trace.TraceMap(inputMap);
    const found = [];
    (inputMap.sources || []).forEach((src, i) => {
        if (sameFile(src, file) || (src && sameFile(src.split('?')[0], file))) {
            found.push((line, column, before, shift) => traced(trace, first, i, line, column, before, shift));
        }
        const inner = inlineMap((inputMap.sourcesContent || [])[i]);
        const j = inner ? (inner.sources || []).findIndex((s) => sameFile(s, file)) : -1;
        if (j >= 0) {
            const second = new trace.TraceMap(inner);
            found.push((line, column, before, shift) => {
                const there = traced(trace, first, i, line, column, before, shift);
                return there && traced(trace, second, j, there.line, there.column, -1, shift);
            });
        }
    });
    return found;
}

const WORD = /[A-Za-z_$][\w$]*/g;
const CHECKED_WORDS = 300;

/* The way that puts the compiled code's words on the same words of the file (the most
 * of them), or null when none puts any there. */
function locator(trace, inputMap, file, code, original) {
    const lines = original.split('\n');
    const words = [];
    code.split('\n').some((text, n) => {
        for (const m of text.matchAll(WORD)) {
            words.push([n + 1, m.index, m[0]]);
        }
        return words.length >= CHECKED_WORDS;
    });
    let best = null;
    let bestScore = 0;
    for (const locate of ways(trace, inputMap, file)) {
        let score = 0;
        for (const [line, column, word] of words) {
            const at = locate(line, column);
            if (at && (lines[at.line - 1] || '').startsWith(word, at.column)) {
                score += 1;
            }
        }
        if (score > bestScore) {
            [best, bestScore] = [locate, score];
        }
    }
    return best;
}

/* A node's location in the file, or null. A statement whose first token the compiler
 * did not map (Svelte's `if`) may start at its first mapped token; a function may not
 * (the compiled component's own function starts with glue and holds mapped code).
 * Compiled template code is not the template's text shifted: a node that starts
 * between two mapped tokens (Vue's `$event => (count.value++)` for `@click="count++"`)
 * is put at the mapped token before it, not that token's place plus the distance, which
 * may land past the node's own end. */
function mapped(locate, loc, statement = false) {
    if (!loc || !loc.start || !loc.end) {
        return null;
    }
    const before = !statement ? -1 : loc.end.line === loc.start.line ? loc.end.column : Infinity;
    let start = locate(loc.start.line, loc.start.column, before);
    const last = locate(loc.end.line, Math.max(0, loc.end.column - 1));
    if (!start || !last) {
        return null;
    }
    const end = { line: last.line, column: last.column + 1 };
    const inverted = (from) => end.line < from.line || (end.line === from.line && end.column < from.column);
    if (inverted(start)) {
        start = locate(loc.start.line, loc.start.column, before, false);
        if (!start || inverted(start)) {
            return null;
        }
    }
    return { start, end };
}

/* {code, map} of the compiled module with counters, or null when it is not one of the
 * app's component modules, its map does not lead back to the file, or it holds no code
 * of the file's own. `inputMap`: the bundler's map of `code` to the component file. */
function instrument(root, id, code, inputMap) {
    const key = componentKey(root, id, code);
    if (key === null) {
        return null;
    }
    const file = id.split('?')[0];
    try {
        return instrumentCompiled(id, file, key, code, inputMap);
    } catch (error) {
        recording.skip(key, `could not instrument its compiled script: ${String(error.message || error).split('\n')[0]}`);
        return null;
    }
}

/* `chain`: the output's map leads to the files `inputMap` leads to (Babel combines
 * them), for a caller that hands the output on without a bundler's map chain (Angular's
 * compiled TypeScript carries its map inline, js/angular-hook.cjs); `template`: the file
 * is a template whose compiled code shares few words with it (Angular's instructions):
 * the map's own way to the file is taken when no way puts words on the same words. */
function instrumentCompiled(id, file, key, code, inputMap, { chain = false, template = false } = {}) {
    if (!inputMap || !inputMap.mappings) {
        return null;
    }
    const babel = recording.tool('@babel/core');
    const original = fs.readFileSync(file, 'utf8');
    const trace = recording.tool('@jridgewell/trace-mapping');
    const locate = locator(trace, inputMap, file, code, original)
        || (template ? ways(trace, inputMap, file)[0] || null : null);
    if (locate === null) {
        recording.skip(key, 'the source map of its compiled script does not lead back to the file');
        return null;
    }
    const counted = { coverage: null };
    const out = babel.transformSync(code, {
        filename: file,
        babelrc: false,
        configFile: false,
        sourceType: 'module',
        compact: false,
        sourceMaps: true,
        inputSourceMap: chain ? inputMap : undefined,
        parserOpts: { plugins: ['jsx', 'importAttributes', 'topLevelAwait'] },
        plugins: [countingPlugin(locate, key, counted)],
    });
    const coverage = counted.coverage;
    if (!coverage || Object.keys(coverage.statementMap).length + Object.keys(coverage.fnMap).length === 0) {
        return null; // only the compiler's glue: nothing of the file's own to count
    }
    recording.record(key, coverage, original);
    return { code: out.code, map: out.map };
}

/* A Babel plugin that puts Istanbul's counters under `key` in the program, counting at
 * the component file's places, and leaves its file coverage in `counted.coverage` (one
 * plugin per module: it closes over that module's places and counters). */
function countingPlugin(locate, key, counted) {
    return function plugin(api) {
        const t = api.types;
        return {
            name: 'iwc-istanbul-components',
            visitor: {
                Program: {
                    enter(programPath) {
                        const compiled = toFilePlaces(locate, programPath);
                        const visitor = programVisitor(t, key, {
                            coverageVariable: '__coverage__',
                            coverageGlobalScope: 'globalThis',
                            coverageGlobalScopeFunc: false,
                        });
                        visitor.enter(programPath);
                        // compiled places back (the output's own map), nothing for Istanbul's nodes
                        programPath.traverse({
                            enter(p) {
                                p.node.loc = compiled.has(p.node) ? compiled.get(p.node) : null;
                            },
                        });
                        programPath.node.loc = compiled.get(programPath.node);
                        this.iwcVisitor = visitor;
                    },
                    exit(programPath) {
                        counted.coverage = this.iwcVisitor.exit(programPath).fileCoverage;
                    },
                },
            },
        };
    };
}

/* `const click_handler = () => …`, `const input_handler_1 = …`: how Svelte 4 names the
 * arrow functions it compiles from the template's `on:` handlers. */
const svelte4Handler = (p) => p.isArrowFunctionExpression() && p.parentPath.isVariableDeclarator()
    && p.parent.id.type === 'Identifier' && /_handler(_\d+)?$/.test(p.parent.id.name);

/* An arrow passed to a call the file's own code makes (its callee came from the file,
 * and was put at its place already: Babel enters a call's callee before its arguments),
 * not to the compiler's glue (`binding_callbacks.push(() => …)`). */
const authorsCallback = (p) => p.isArrowFunctionExpression() && p.parentPath.isCallExpression()
    && p.parent.arguments.includes(p.node) && Boolean(p.parent.callee.loc);

/* The span of an arrow function's body: its expression, or its statements. */
function bodySpan(body) {
    if (body.type !== 'BlockStatement') {
        return body.loc;
    }
    const [first, last] = [body.body[0], body.body[body.body.length - 1]];
    return first && first.loc && last.loc ? { start: first.loc.start, end: last.loc.end } : null;
}

/* The place of the first node below `node` (breadth first, compiled locations) that
 * came from the file: `$$invalidate(4, isForm = true)` is where `isForm = true` was. */
function firstMapped(locate, node) {
    const queue = [node];
    for (let n = 0; queue.length && n < 50; n += 1) {
        const next = queue.shift();
        const place = next !== node ? mapped(locate, next.loc) : null;
        if (place) {
            return place;
        }
        for (const value of Object.values(next)) {
            for (const child of Array.isArray(value) ? value : [value]) {
                if (child && typeof child.type === 'string' && child.loc) {
                    queue.push(child);
                }
            }
        }
    }
    return null;
}

/* Every node's location replaced by its place in the component file (null: none);
 * returns the compiled locations by node, to be put back. */
function toFilePlaces(locate, programPath) {
    const compiled = new Map();
    const relocate = (node) => {
        if (node && typeof node.type === 'string' && !compiled.has(node)) {
            compiled.set(node, node.loc);
            const loc = node.loc;
            node.loc = mapped(locate, loc, /Statement$|^VariableDeclaration$/.test(node.type));
            if (!node.loc && node.id && node.id.loc && /Function/.test(node.type)) {
                // `function name(…)` whose keyword the compiler did not map: from its name
                // to its end, or to its last statement's (Svelte 4 maps no closing brace)
                const last = node.body && node.body.body && node.body.body[node.body.body.length - 1];
                node.loc = mapped(locate, { start: node.id.loc.start, end: loc.end })
                    || (last && last.loc ? mapped(locate, { start: node.id.loc.start, end: last.loc.end }) : null);
            }

        }
    };
    relocate(programPath.node);
    programPath.traverse({
        enter(p) {
            const compiledLoc = p.node.loc;
            relocate(p.node);
            if (!p.node.loc && compiledLoc && (svelte4Handler(p) || authorsCallback(p))) {
                // Svelte 4 maps only the body of a template handler it compiles to
                // `const click_handler = () => f(x)`, and of an arrow the script hands to a
                // call (`onMount(() => input.focus())`): it is where its body was written
                p.node.loc = mapped(locate, bodySpan(p.node.body)) || firstMapped(locate, p.node.body);
            }
            // Istanbul counts a function with its body's place
            const n = p.node;
            if (p.isFunction() && n.loc && n.body) {
                relocate(n.body);
            }
            if (p.isFunction() && n.loc && n.body && !n.body.loc) {
                n.body.loc = n.loc;
            }
        },
    });
    return compiled;
}

module.exports = { componentKey, inlineMap, instrument, instrumentCompiled, mapped };
