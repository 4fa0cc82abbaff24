/*
 * Inline event-handler attributes (onclick="start()" …) instrumented like scripts.
 *
 * All handler attributes of one page become one synthetic program: each handler is a
 * function named after its attribute (`function onclick(event) { start() }`) placed
 * on its page line, so coverage locations are page lines. Istanbul instruments that
 * program under the key "<page>#handlers"; each attribute then gets the instrumented
 * body of its function back, and the program's coverage function is injected as the
 * page's first script so the counters exist before any handler can run. Used by
 * instrument.js; it decides nothing about pages and never throws for an app's code
 * (a handler that does not parse stays as it was).
 */
'use strict';

const HANDLER_ATTR = /^on[a-z]+$/;

function collect(node, out) {
    if (node.attrs && node.sourceCodeLocation && node.sourceCodeLocation.attrs) {
        for (const a of node.attrs) {
            if (HANDLER_ATTR.test(a.name) && a.value.trim() && node.sourceCodeLocation.attrs[a.name]) {
                out.push({ name: a.name, code: a.value, loc: node.sourceCodeLocation.attrs[a.name] });
            }
        }
    }
    for (const child of node.childNodes || []) collect(child, out);
    if (node.content) collect(node.content, out);
}

function escapeAttribute(text) {
    return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/* Where the coverage script goes: first thing in <head> (or <html>, or after the doctype). */
function insertionPoint(doc) {
    const find = (node, tag) => {
        if (node.nodeName === tag) return node;
        for (const child of node.childNodes || []) {
            const hit = find(child, tag);
            if (hit) return hit;
        }
        return null;
    };
    for (const tag of ['head', 'html']) {
        const node = find(doc, tag);
        if (node && node.sourceCodeLocation && node.sourceCodeLocation.startTag) return node.sourceCodeLocation.startTag.endOffset;
    }
    const doctype = (doc.childNodes || []).find((n) => n.nodeName === '#documentType');
    return doctype && doctype.sourceCodeLocation ? doctype.sourceCodeLocation.endOffset : 0;
}

/*
 * ``slim(code, fc)`` is instrument.js's map stripping. Returns null when the page
 * has no handler that parses, else
 * { key, source, fc, edits: [{start, end, code}], scripts: [the text V8 runs per
 * attribute] } for instrument.js to apply.
 */
function instrumentHandlers(page, doc, instrumenter, parser, slim) {
    const found = [];
    collect(doc, found);
    const usable = found.filter((h) => {
        try {
            parser.parse(`function ${h.name}(event) {${h.code}\n}`, { sourceType: 'script' });
            return true;
        } catch {
            return false;
        }
    });
    if (!usable.length) return null;
    usable.sort((a, b) => a.loc.startOffset - b.loc.startOffset);
    // One function per handler, each starting on its attribute's page line.
    let source = '';
    let line = 1;
    for (const h of usable) {
        if (line >= h.loc.startLine) source += ' ';
        while (line < h.loc.startLine) {
            source += '\n';
            line += 1;
        }
        // (a trailing // comment would swallow the brace: then it goes on the next line)
        const close = /\/\/[^\n]*$/.test(h.code) ? '\n}' : '}';
        const text = `function ${h.name}(event) {${h.code}${close}`;
        source += text;
        line += (text.match(/\n/g) || []).length;
    }
    const key = `${page}#handlers`;
    let out;
    try {
        out = instrumenter.instrumentSync(source, key);
    } catch {
        return null;
    }
    const fc = instrumenter.lastFileCoverage();
    out = slim(out, fc);
    let program;
    try {
        program = parser.parse(out, { sourceType: 'script' }).program;
    } catch {
        return null;
    }
    const [coverageFn, registration] = program.body;
    const covName = coverageFn && coverageFn.id && coverageFn.id.name;
    const bodies = program.body.filter((n) => n.type === 'FunctionDeclaration' && n.id && n.id.name !== covName);
    if (!registration || bodies.length !== usable.length) return null;
    const edits = usable.map((h, i) => {
        const body = bodies[i].body;
        const code = out.slice(body.start + 1, body.end - 1);
        return { start: h.loc.startOffset, end: h.loc.endOffset, code: `${h.name}="${escapeAttribute(code)}"` };
    });
    const setup = out.slice(coverageFn.start, registration.end).replace(/<\/(script)/gi, '<\\/$1');
    const at = insertionPoint(doc);
    edits.push({ start: at, end: at, code: `<script>${setup}</script>` });
    // V8 runs each attribute as its own script: the decoded attribute text.
    const scripts = usable.map((h, i) => out.slice(bodies[i].body.start + 1, bodies[i].body.end - 1));
    return { key, source, fc, edits, scripts, count: usable.length };
}

module.exports = { instrumentHandlers };
