/*
 * Facts about one script an explorer can act on, read from its syntax tree: what
 * each function calls, which keys the code compares against (and under which
 * modifiers), which arrays of keys look like sequences, and which timers schedule
 * which functions. Used by instrument.js next to Istanbul; facts name functions by
 * Istanbul's own function ids (matched on the position of the function's body) and
 * branches by Istanbul's branch ids, so the explorer can weigh them against live
 * coverage. It reads code; it must not change it, and it never throws for an app's
 * code (a script it cannot parse has no facts).
 *
 * facts = {
 *   fns:       { fid: { name, calls: [names], inner: [fids of nested functions that
 *                run with it, i.e. not attached as event handlers] } },
 *   keys:      [ { key, mods: ["Control", ...], hold: bool, fn: fid|null, guards: [[bid, arm]] } ],
 *   sequences: [ { keys: [...], users: [fids] } ],
 *   timers:    [ { fn: fid|null (the scheduler), callback: fid|null, callee: name|null, delay: ms|null } ],
 *   named:     { fid: name } of function declarations and functions assigned to a variable
 *              where declared (what other code can call by that name only),
 *   routes:    ["#/active", "/about"] views the code routes to: hash routes in strings,
 *              strings compared with location.hash, `path: '/about'` in router tables,
 *   mentions:  [names] every identifier the script uses other than where it is bound,
 *              and words followed by "(" inside strings (markup with onclick="start()");
 *              a function's name inside its own body (recursion) does not count,
 *   literals, patterns, numbers: what the code checks input against (checks.js)
 * }
 * A named function no script of the page mentions can only run from code that builds
 * names at run time (window[name]()); the explorer counts it as unreachable.
 */
'use strict';

const checks = require('./checks.js');

const KEY_NAMES = new Set([
    'Enter', 'Escape', 'Esc', 'Tab', 'Backspace', 'Delete', 'Insert', 'Home', 'End', 'PageUp', 'PageDown',
    'ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'Up', 'Down', 'Left', 'Right',
    'Shift', 'Control', 'Alt', 'Meta', 'Space', 'Spacebar', ' ', 'ShiftLeft', 'ShiftRight',
    'F1', 'F2', 'F3', 'F4', 'F5', 'F6', 'F7', 'F8', 'F9', 'F10', 'F11', 'F12'
]);
const LEGACY = { Esc: 'Escape', Up: 'ArrowUp', Down: 'ArrowDown', Left: 'ArrowLeft', Right: 'ArrowRight',
    Spacebar: 'Space', ' ': 'Space', ShiftLeft: 'Shift', ShiftRight: 'Shift' };
// (not `ch` or `c`: those are a string's characters far more often than a key)
const KEY_READERS = /^(key|code|keyCode|which|char|charCode|keyName|pressed)$|key$/i;
const HELD_MAPS = /^(keys|keysDown|keysPressed|held|pressed|down|input|controls|keyState|keyMap|pressedKeys)$/i;
// Input.isDown('Space'), keyPressed('KeyW'): a game loop asking for held keys
const HELD_CALLS = /^(is)?(key)?(down|pressed|held)$/i;
// { left: 'a', right: 'd', fire: ' ' }: a player's controls, read as keys[controls.left]
const CONTROL_NAMES = /^(left|right|up|down|fire|shoot|jump|thrust|boost|brake|action|pause|turn\w*|rotate\w*|move\w*)$/i;
const MAX_DYNAMIC_READS = 20;
const MODIFIERS = { ctrlKey: 'Control', metaKey: 'Control', shiftKey: 'Shift', altKey: 'Alt' };
const TIMERS = new Set(['setTimeout', 'setInterval', 'requestAnimationFrame']);
const ATTACHERS = new Set(['addEventListener', 'on', 'once', 'bind', 'addListener']);
const FUNCTION_TYPES = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression',
    'ObjectMethod', 'ClassMethod', 'ClassPrivateMethod']);
const MAX_NODES = 400000; // a huge bundle gets partial facts rather than a slow instrumentation
const MAX_MENTIONS = 50000;
const CALLED_IN_TEXT = /[A-Za-z_$][\w$]*(?=\s*\()/g;
const HASH_ROUTE = /^#!?\/[\w\-/.:]*$/;
const PATH_ROUTE = /^\/[\w\-/.:]*$/;
const RELATIVE_ROUTE = /^[\w-]+(\/[\w-]+)*$/;
// what a router's route object holds beside its path (Angular, Vue Router, React Router's objects)
const ROUTE_KEYS = /^(component|loadComponent|loadChildren|redirectTo|children|element|Component|lazy)$/;
const MAX_ROUTES = 40;

/* A key name as Playwright presses it, or null when the text is no key. */
function keyName(text) {
    if (typeof text !== 'string') return null;
    if (text.length === 1) return text === ' ' ? 'Space' : text;
    if (KEY_NAMES.has(text)) return LEGACY[text] || text;
    if (/^(Key[A-Z]|Digit[0-9]|Numpad[0-9])$/.test(text)) return text;
    return null;
}

function at(loc) {
    return loc ? `${loc.start.line}:${loc.start.column}` : '';
}

/* Text of a node that reads a key: `e.key` → "key", `key` → "key". */
function readerName(node) {
    if (!node) return null;
    if (node.type === 'Identifier') return node.name;
    if (node.type === 'MemberExpression' && !node.computed && node.property.type === 'Identifier') return node.property.name;
    if (node.type === 'CallExpression' && node.callee.type === 'MemberExpression') {
        // e.key.toLowerCase()
        return readerName(node.callee.object);
    }
    return null;
}

// (what a callee is called: `name`, `obj.name`)
const { stringOf, nameOf: calleeName } = checks;

/* The name a function is known by: its id, the variable, property or method it is. */
function functionName(node, parent) {
    if (node.id && node.id.name) return node.id.name;
    if ((node.type === 'ObjectMethod' || node.type === 'ClassMethod') && node.key) {
        return node.key.name || node.key.value || null;
    }
    if (!parent) return null;
    if (parent.type === 'VariableDeclarator' && parent.id.type === 'Identifier') return parent.id.name;
    if ((parent.type === 'ObjectProperty' || parent.type === 'ClassProperty') && parent.key) return parent.key.name || parent.key.value || null;
    if (parent.type === 'AssignmentExpression') return calleeName(parent.left);
    return null;
}

/* The name other code calls a function by, when that name is its only way in: a
 * declaration's or a `const f = () => …`'s. (An exported one counts as called.) */
function bindingName(node, parent, stack) {
    if (stack.slice(-3).some((n) => n.type === 'ExportNamedDeclaration' || n.type === 'ExportDefaultDeclaration')) return null;
    if (node.type === 'FunctionDeclaration' && node.id) return node.id.name;
    if ((node.type === 'FunctionExpression' || node.type === 'ArrowFunctionExpression') && parent
        && parent.type === 'VariableDeclarator' && parent.init === node && parent.id.type === 'Identifier') return parent.id.name;
    return null;
}

/* Is this identifier where a name is bound (not a use of it)? */
function isBinding(node, parent) {
    if (!parent) return false;
    if (parent.type === 'FunctionDeclaration' && parent.id === node) return true;
    if (parent.type === 'FunctionExpression' && parent.id === node) return true;
    if (parent.type === 'VariableDeclarator' && parent.id === node) return true;
    return false;
}

function codeFacts(code, fc, parser, sourceType) {
    let ast;
    try {
        ast = parser.parse(code, {
            sourceType, errorRecovery: true, allowReturnOutsideFunction: true,
            plugins: ['jsx', 'classProperties', 'classPrivateProperties', 'classPrivateMethods', 'optionalChaining',
                'nullishCoalescingOperator', 'topLevelAwait', 'dynamicImport']
        });
    } catch {
        return null;
    }
    const scan = startScan(fc);
    visit(scan, ast.program, null, [], null);
    const { facts } = scan;
    for (const read of scan.dynamicReads) for (const key of scan.controlKeys) addKey(scan, key, read.stack, read.fid, true);
    facts.mentions = [...scan.mentions].sort();
    facts.routes = [...scan.routes];
    for (const { keys, users } of scan.arrayUsers.values()) facts.sequences.push({ keys, users: [...users] });
    return Object.assign(facts, checks.checkFacts(scan.checks));
}

/* What one walk over a script's tree gathers, with Istanbul's ids by place. */
function startScan(fc) {
    const byBody = new Map(); // "line:col" of a function's body → Istanbul fid
    for (const [fid, fn] of Object.entries(fc.fnMap)) byBody.set(at(fn.loc), fid);
    const branchAt = new Map(); // "line:col" of an if / switch / conditional → [bid, type]
    for (const [bid, br] of Object.entries(fc.branchMap)) {
        if (br.type === 'if' || br.type === 'switch' || br.type === 'cond-expr') branchAt.set(`${br.type}@${at(br.loc)}`, bid);
    }
    return {
        byBody, branchAt,
        numbers: new Map(), // top-level `const NAME = 123`
        facts: { fns: {}, keys: [], sequences: [], timers: [], named: {}, mentions: [], routes: [] },
        routes: new Set(),
        mentions: new Set(),
        seenKeys: new Set(),
        arrayUsers: new Map(), // array variable name → { keys, users:Set }
        keyTables: new Map(), // `const SHORTCUTS = { b: 'brush', e: 'eraser' }` → its keys
        handlers: new Set(), // function nodes attached as event handlers
        controlKeys: new Set(), // key names bound to control names ({ left: 'a' })
        dynamicReads: [], // keys[controls.left]: held-map reads by a key not written out
        checks: checks.startChecks(), // what input the code checks against
        visited: 0
    };
}

function fidOf(scan, node) {
    return node && node.body ? scan.byBody.get(at(node.body.loc)) || null : null;
}

/* Modifiers and Istanbul branch arms guarding a node, from its ancestors. */
function context(scan, stack) {
    const mods = new Set();
    const guards = [];
    for (let i = stack.length - 1; i >= 0; i--) {
        const node = stack[i];
        if (FUNCTION_TYPES.has(node.type)) break;
        const child = stack[i + 1];
        let test = null;
        if (node.type === 'IfStatement') {
            // (an else branch runs when the test failed: its modifiers do not apply)
            test = child === node.alternate ? null : node.test;
            const bid = scan.branchAt.get(`if@${at(node.loc)}`);
            if (bid !== undefined) {
                if (child === node.test || child === node.consequent) guards.push([bid, 0]);
                else if (child === node.alternate) guards.push([bid, 1]);
            }
        } else if (node.type === 'ConditionalExpression') {
            test = child === node.alternate ? null : node.test;
            const bid = scan.branchAt.get(`cond-expr@${at(node.loc)}`);
            if (bid !== undefined) guards.push([bid, child === node.alternate ? 1 : 0]);
        } else if (node.type === 'SwitchStatement') {
            const bid = scan.branchAt.get(`switch@${at(node.loc)}`);
            const index = node.cases.indexOf(child);
            if (bid !== undefined && index >= 0) guards.push([bid, index]);
        } else if (node.type === 'LogicalExpression') {
            test = node;
        }
        if (test) collectModifiers(test, mods);
    }
    return { mods: [...mods].sort(), guards };
}

function collectModifiers(node, mods) {
    const todo = [node];
    let budget = 200;
    while (todo.length && budget-- > 0) {
        const n = todo.pop();
        if (!n || typeof n !== 'object') continue;
        if (n.type === 'UnaryExpression' && n.operator === '!') continue; // `!e.ctrlKey`: no modifier
        if (n.type === 'MemberExpression' && !n.computed && n.property && MODIFIERS[n.property.name]) {
            mods.add(MODIFIERS[n.property.name]);
        }
        for (const k of ['left', 'right', 'argument', 'object', 'test', 'expressions']) {
            const v = n[k];
            if (Array.isArray(v)) todo.push(...v); else if (v) todo.push(v);
        }
    }
}

function addKey(scan, text, stack, fid, hold) {
    const key = keyName(text);
    if (key === null) return;
    const { mods, guards } = context(scan, stack);
    const sig = `${key}|${mods.join('+')}|${hold}|${JSON.stringify(guards)}`;
    if (scan.seenKeys.has(sig)) return;
    scan.seenKeys.add(sig);
    scan.facts.keys.push({ key, mods, hold, fn: fid, guards });
}

function visit(scan, node, parent, stack, fid) {
    if (!node || typeof node.type !== 'string' || ++scan.visited > MAX_NODES) return;
    const here = FUNCTION_TYPES.has(node.type) ? enterFunction(scan, node, parent, stack, fid) : fid;
    const note = NOTES.get(node.type);
    if (note) note(scan, node, { parent, stack, here, fn: here !== null ? scan.facts.fns[here] : null });
    checks.noteCheck(scan.checks, node);
    stack.push(node);
    for (const key of Object.keys(node)) {
        if (key === 'loc' || key === 'start' || key === 'end' || key === 'leadingComments'
            || key === 'trailingComments' || key === 'innerComments' || key === 'extra') continue;
        const value = node[key];
        if (Array.isArray(value)) {
            for (const child of value) if (child && typeof child.type === 'string') visit(scan, child, node, stack, here);
        } else if (value && typeof value.type === 'string') {
            visit(scan, value, node, stack, here);
        }
    }
    stack.pop();
}

/* A function Istanbul counts: its facts begin; returns the fid the code inside runs under. */
function enterFunction(scan, node, parent, stack, fid) {
    const { facts } = scan;
    const own = fidOf(scan, node);
    if (own === null) return fid;
    facts.fns[own] = { name: functionName(node, parent), calls: [], inner: [] };
    const bound = bindingName(node, parent, stack);
    if (bound) facts.named[own] = bound;
    // A nested function runs with its parent (a forEach callback) — unless it
    // is a handler: it runs when its event comes, not when it is attached.
    if (fid !== null && facts.fns[fid] && !scan.handlers.has(node)) facts.fns[fid].inner.push(own);
    return own;
}

/* A call: handlers attached, held keys asked for, what the function calls, timers,
 * ['ArrowUp', ' '].includes(e.key). */
function noteCall(scan, node, { stack, here, fn }) {
    const name = calleeName(node.callee);
    if (name && ATTACHERS.has(name)) for (const arg of node.arguments) scan.handlers.add(arg);
    if (name && HELD_CALLS.test(name) && node.arguments.length === 1) {
        addKey(scan, stringOf(node.arguments[0]), stack.concat(node), here, true);
    }
    if (fn && name) fn.calls.push(name);
    if (fn) for (const arg of node.arguments) if (arg.type === 'Identifier') fn.calls.push(arg.name);
    if (name && TIMERS.has(name)) noteTimer(scan, node, name, here);
    if (node.callee.type === 'MemberExpression' && calleeName(node.callee) === 'includes'
        && node.callee.object.type === 'ArrayExpression' && node.arguments[0]
        && KEY_READERS.test(readerName(node.arguments[0]) || '')) {
        for (const el of node.callee.object.elements) addKey(scan, stringOf(el), stack.concat(node), here, false);
    }
}

function noteTimer(scan, node, name, here) {
    const cb = node.arguments[0];
    let delay = null;
    const d = node.arguments[1];
    if (d && d.type === 'NumericLiteral') delay = d.value;
    else if (d && d.type === 'Identifier' && scan.numbers.has(d.name)) delay = scan.numbers.get(d.name);
    else if (name === 'requestAnimationFrame') delay = 16;
    scan.facts.timers.push({
        fn: here, callback: cb && FUNCTION_TYPES.has(cb.type) ? fidOf(scan, cb) : null,
        callee: cb && cb.type === 'Identifier' ? cb.name : calleeName(cb), delay
    });
}

/* e.key === 'Enter'; location.hash === '#completed' */
function noteComparison(scan, node, { stack, here }) {
    if (!['===', '==', '!==', '!='].includes(node.operator)) return;
    const [lit, other] = stringOf(node.right) !== null ? [node.right, node.left] : [node.left, node.right];
    const text = stringOf(lit);
    if (text !== null && KEY_READERS.test(readerName(other) || '')) addKey(scan, text, stack.concat(node), here, false);
    if (text !== null && readerName(other) === 'hash' && /^#?[\w\-/!]+$/.test(text)) {
        route(scan, text.startsWith('#') ? text : `#${text}`);
    }
}

function noteSwitch(scan, node, { stack, here }) {
    if (!KEY_READERS.test(readerName(node.discriminant) || '')) return;
    node.cases.forEach((c) => {
        const text = stringOf(c.test);
        if (text !== null) addKey(scan, text, stack.concat(node, c), here, false);
    });
}

function noteMember(scan, node, { parent, stack, here }) {
    // SHORTCUTS[key]: a table of keys looked up by the pressed key
    if (node.computed && node.object.type === 'Identifier' && scan.keyTables.has(node.object.name)
        && KEY_READERS.test(readerName(node.property) || '')) {
        for (const k of scan.keyTables.get(node.object.name)) addKey(scan, k, stack.concat(node), here, false);
    }
    // keys.ArrowLeft, held[' ']: a game loop reading held keys
    const owner = node.object.type === 'Identifier' ? node.object.name
        : node.object.type === 'MemberExpression' ? calleeName(node.object) : null;
    if (owner && HELD_MAPS.test(owner)) {
        const text = node.computed ? stringOf(node.property) : node.property.name;
        const parentIsAssign = parent && parent.type === 'AssignmentExpression' && parent.left === node;
        if (text && !parentIsAssign) addKey(scan, text, stack.concat(node), here, true);
        else if (node.computed && !parentIsAssign && node.property.type === 'MemberExpression'
            && scan.dynamicReads.length < MAX_DYNAMIC_READS) scan.dynamicReads.push({ stack: stack.concat(node), fid: here });
    }
}

function noteObjectProperty(scan, node, { parent, stack, here }) {
    // { note: 'C', key: 'a' }
    const k = node.key && (node.key.name || node.key.value);
    if (k && /^(key|hotkey|shortcut)$/i.test(k)) addKey(scan, stringOf(node.value), stack.concat(node), here, false);
    if (k && CONTROL_NAMES.test(k) && keyName(stringOf(node.value)) !== null) scan.controlKeys.add(stringOf(node.value));
    // { path: '/about', component: About }: a router table; Angular's Routes
    // write it relative ({ path: 'active', component: … })
    if (k === 'path') tablePath(scan, stringOf(node.value), routeObject(parent));
}

function noteJSXAttribute(scan, node) {
    // <Route path="/about" element={…} />: React Router's table in JSX
    if (node.name && node.name.name === 'path' && node.value && node.value.type === 'StringLiteral') {
        tablePath(scan, node.value.value, false);
    }
}

function noteAssignment(scan, node) {
    // el.onclick = () => …
    if (/^on[a-z]+$/.test(calleeName(node.left) || '')) scan.handlers.add(node.right);
}

/* const DELAY = 100; const SHORTCUTS = { b: …, e: … }; const KONAMI = ['ArrowUp', …] */
function noteDeclarator(scan, node, { here }) {
    if (!(node.id.type === 'Identifier' && node.init)) return;
    if (node.init.type === 'NumericLiteral' && here === null) scan.numbers.set(node.id.name, node.init.value);
    if (node.init.type === 'ObjectExpression' && node.init.properties.length >= 2) {
        const names = node.init.properties.map((p) => p.type === 'ObjectProperty' && p.key
            ? keyName(p.key.name !== undefined ? p.key.name : p.key.value) : null);
        if (names.every((k) => k !== null)) scan.keyTables.set(node.id.name, names);
    }
    if (node.init.type === 'ArrayExpression' && node.init.elements.length >= 3) {
        const keys = node.init.elements.map((e) => keyName(stringOf(e)));
        if (keys.every((k) => k !== null)) scan.arrayUsers.set(node.id.name, { keys, users: new Set() });
    }
}

function noteString(scan, node) {
    const text = node.type === 'StringLiteral' ? node.value : node.value.cooked || '';
    if (node.type === 'StringLiteral' && HASH_ROUTE.test(text)) route(scan, text);
    if (text.includes('(')) for (const word of text.match(CALLED_IN_TEXT) || []) mention(scan, word);
}

function noteIdentifier(scan, node, { parent, here }) {
    if (!isBinding(node, parent) && scan.facts.named[here] !== node.name) mention(scan, node.name);
    const entry = scan.arrayUsers.get(node.name);
    if (entry && here !== null && !(parent && parent.type === 'VariableDeclarator' && parent.id === node)) entry.users.add(here);
}

/* What each kind of node tells, by its type. */
const NOTES = new Map([
    ['CallExpression', noteCall], ['NewExpression', noteCall], ['OptionalCallExpression', noteCall],
    ['BinaryExpression', noteComparison],
    ['SwitchStatement', noteSwitch],
    ['MemberExpression', noteMember],
    ['ObjectProperty', noteObjectProperty],
    ['JSXAttribute', noteJSXAttribute],
    ['AssignmentExpression', noteAssignment],
    ['VariableDeclarator', noteDeclarator],
    ['StringLiteral', noteString], ['TemplateElement', noteString],
    ['Identifier', noteIdentifier]
]);

/* A router table's path: absolute, or relative inside a route object; never one
 * with parameters (":id"), which no link can name. */
function tablePath(scan, text, inRouteObject) {
    if (text === null || text.includes(':')) return;
    if (PATH_ROUTE.test(text)) route(scan, text);
    else if (inRouteObject && RELATIVE_ROUTE.test(text)) route(scan, `/${text}`);
}

function routeObject(object) {
    return object && object.type === 'ObjectExpression' && object.properties.some((p) => p.type === 'ObjectProperty'
        && p.key && ROUTE_KEYS.test(p.key.name || p.key.value || ''));
}

function route(scan, text) {
    if (scan.routes.size < MAX_ROUTES) scan.routes.add(text);
}

function mention(scan, name) {
    if (scan.mentions.size < MAX_MENTIONS) scan.mentions.add(name);
}

module.exports = { codeFacts, keyName };
