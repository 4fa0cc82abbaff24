/*
 * What an app's code checks its input against, read from its syntax tree by facts.js's
 * walk: the explorer types values that pass these checks (and near misses that fail
 * them) so both arms of a handler's validation run. It reads code; it never changes
 * it and never throws for an app's code.
 *
 * checks = {
 *   literals: ["SAVE20", "1234"] strings the code compares a value against: an operand
 *             of ===, ==, !==, != (or <, >, … ) whose other side is no literal (and no
 *             `typeof`), switch cases, .includes('x') / .startsWith / .endsWith
 *             arguments, the strings of an array or Set asked .includes(v) / .indexOf(v) /
 *             .has(v), the keys of an object looked up by a value (COUPONS[code], code in COUPONS),
 *   patterns: [{ source, flags }] regex literals and new RegExp('…') used with .test /
 *             .exec or passed to .match / .search / .replace (directly or through the
 *             variable or property holding them), and pattern attributes the code sets
 *             (input.pattern = '…', setAttribute('pattern', …), <input pattern="…">) as
 *             the browser reads them: ^(?:…)$ with the v flag,
 *   numbers:  [8, 18] numbers compared (<, <=, >, >=, ===, ==, !==, !=) with no literal:
 *             value.length < 8, age >= 18,
 *   targets:  [".seat", "li .delete"] selectors the code tests an element against —
 *             classList.contains('seat') as ".seat", .matches('…') and .closest('…') as
 *             written: a listener on a container that asks which child was clicked
 *             (event delegation) acts only for children that pass, so the explorer
 *             offers those children (observe.mjs), which have no listener of their own
 * }
 * Each list keeps the first 200 entries in source order; strings over 64 characters
 * (regex sources over 256) are left out: they are text, not values to type.
 */
'use strict';

const MAX_ENTRIES = 200;
const MAX_TEXT = 64;
const MAX_SOURCE = 256;
const MAX_TABLE = 100; // keys of an object read as a table of values (COUPONS)
const COMPARISONS = new Set(['===', '==', '!==', '!=', '<', '<=', '>', '>=']);
const STRING_TESTS = new Set(['includes', 'startsWith', 'endsWith']);
const LIST_TESTS = new Set(['includes', 'indexOf', 'has']);
const SELECTOR_TESTS = new Set(['matches', 'closest']);
const CLASS_NAME = /^-?[_a-zA-Z][\w-]*$/;
const REGEX_METHODS = new Set(['test', 'exec']);
const REGEX_TAKERS = new Set(['match', 'matchAll', 'search', 'replace', 'replaceAll']);
const LITERALS = new Set(['StringLiteral', 'NumericLiteral', 'BooleanLiteral', 'NullLiteral', 'RegExpLiteral',
    'BigIntLiteral']);

function startChecks() {
    return {
        literals: new Set(), patterns: new Map(), numbers: new Set(), targets: new Set(),
        // bound by name, used by name: resolved at the end (a use may come first)
        lists: new Map(), regexes: new Map(), tables: new Map(),
        listUses: new Set(), regexUses: new Set(), tableUses: new Set()
    };
}

function stringOf(node) {
    if (!node) return null;
    if (node.type === 'StringLiteral') return node.value;
    if (node.type === 'TemplateLiteral' && node.expressions.length === 0) return node.quasis[0].value.cooked;
    return null;
}

function numberOf(node) {
    if (node && node.type === 'NumericLiteral') return node.value;
    if (node && node.type === 'UnaryExpression' && node.operator === '-' && node.argument.type === 'NumericLiteral') {
        return -node.argument.value;
    }
    return null;
}

/* Is this node a constant (a literal, `undefined`, -1) rather than a value read at run time? */
function isConstant(node) {
    if (!node) return true;
    if (LITERALS.has(node.type) || stringOf(node) !== null || numberOf(node) !== null) return true;
    return node.type === 'Identifier' && node.name === 'undefined';
}

/* `name`, `this.name`, `obj.name`: what a value is held by. */
function nameOf(node) {
    if (!node) return null;
    if (node.type === 'Identifier') return node.name;
    if ((node.type === 'MemberExpression' || node.type === 'OptionalMemberExpression') && !node.computed
        && node.property.type === 'Identifier') return node.property.name;
    return null;
}

/* /…/flags, new RegExp('…', 'flags') or RegExp('…'): { source, flags }, else null. */
function regexOf(node) {
    if (!node) return null;
    if (node.type === 'RegExpLiteral') return { source: node.pattern, flags: node.flags || '' };
    if ((node.type === 'NewExpression' || node.type === 'CallExpression') && nameOf(node.callee) === 'RegExp') {
        const source = stringOf(node.arguments[0]);
        return source === null ? null : { source, flags: stringOf(node.arguments[1]) || '' };
    }
    return null;
}

/* ['A1', 'B2'] or new Set(['A1', 'B2']): its strings, else null. */
function stringsOf(node) {
    const array = node && node.type === 'NewExpression' && nameOf(node.callee) === 'Set' ? node.arguments[0] : node;
    if (!array || array.type !== 'ArrayExpression' || array.elements.length === 0) return null;
    const strings = array.elements.map(stringOf);
    return strings.every((s) => s !== null) ? strings : null;
}

/* { SAVE20: 0.2, 'WELCOME10': 0.1 }: its keys, else null. */
function keysOf(node) {
    if (!node || node.type !== 'ObjectExpression' || node.properties.length === 0
        || node.properties.length > MAX_TABLE) return null;
    const keys = node.properties.map((p) => (p.type === 'ObjectProperty' && !p.computed && p.key
        ? (p.key.type === 'Identifier' ? p.key.name : stringOf(p.key)) : null));
    return keys.every((k) => k !== null) ? keys : null;
}

function literal(checks, text) {
    if (typeof text === 'string' && text.length > 0 && text.length <= MAX_TEXT
        && checks.literals.size < MAX_ENTRIES) checks.literals.add(text);
}

function pattern(checks, found) {
    if (!found || found.source.length > MAX_SOURCE || checks.patterns.size >= MAX_ENTRIES) return;
    checks.patterns.set(`${found.flags}/${found.source}`, found);
}

/* A pattern attribute, as the browser compiles it. */
function attribute(checks, text) {
    if (text) pattern(checks, { source: `^(?:${text})$`, flags: 'v' });
}

function bind(checks, name, value) {
    if (!name || !value) return;
    const regex = regexOf(value);
    if (regex) checks.regexes.set(name, regex);
    const strings = stringsOf(value);
    if (strings) checks.lists.set(name, strings);
    const keys = keysOf(value);
    if (keys) checks.tables.set(name, keys);
}

/* What the page or the event is, never what a user types: e.target.tagName === 'INPUT',
   e.key === 'Enter', input.type === 'checkbox' (a value typed from them fails the app's
   own checks). */
const NOT_TYPED = new Set(['tagName', 'nodeName', 'localName', 'nodeType', 'type', 'key', 'code', 'keyCode',
    'which', 'button', 'readyState', 'visibilityState', 'inputType', 'pointerType']);

function readsThePage(node) {
    return node.type === 'MemberExpression' && !node.computed && node.property.type === 'Identifier'
        && NOT_TYPED.has(node.property.name);
}

/* A side of a comparison whose other side is no value a user types: a constant, what the
   page or the event is, a `typeof`. */
function notTyped(node) {
    return isConstant(node) || readsThePage(node) || (node.type === 'UnaryExpression' && node.operator === 'typeof');
}

/* code === 'SAVE20', age >= 18, `in` a table */
function noteBinary(checks, node) {
    if (node.operator === 'in') {
        if (!isConstant(node.left)) checks.tableUses.add(nameOf(node.right));
        return;
    }
    if (!COMPARISONS.has(node.operator)) return;
    for (const [one, other] of [[node.left, node.right], [node.right, node.left]]) {
        if (notTyped(other)) continue;
        literal(checks, stringOf(one));
        const number = numberOf(one);
        if (number !== null && checks.numbers.size < MAX_ENTRIES) checks.numbers.add(number);
    }
}

function noteSwitch(checks, node) {
    if (notTyped(node.discriminant)) return;
    for (const c of node.cases) literal(checks, stringOf(c.test));
}

/* re.test(v), v.match(re), v.includes('x'), CODES.has(v), el.setAttribute('pattern', '…') */
function noteCall(checks, node) {
    const callee = node.callee;
    if (!callee || (callee.type !== 'MemberExpression' && callee.type !== 'OptionalMemberExpression')) return;
    const method = nameOf(callee);
    const [first, second] = node.arguments;
    if (REGEX_METHODS.has(method)) {
        const regex = regexOf(callee.object);
        if (regex) pattern(checks, regex); else checks.regexUses.add(nameOf(callee.object));
    }
    if (REGEX_TAKERS.has(method) && first) {
        const regex = regexOf(first);
        if (regex) pattern(checks, regex); else checks.regexUses.add(nameOf(first));
    }
    if (STRING_TESTS.has(method) && !isConstant(callee.object)) literal(checks, stringOf(first));
    if (LIST_TESTS.has(method) && first && !isConstant(first)) {
        const strings = stringsOf(callee.object);
        if (strings) strings.forEach((s) => literal(checks, s)); else checks.listUses.add(nameOf(callee.object));
    }
    if (method === 'hasOwnProperty' && first && !isConstant(first)) checks.tableUses.add(nameOf(callee.object));
    if (method === 'setAttribute' && stringOf(first) === 'pattern') attribute(checks, stringOf(second));
    target(checks, method, callee.object, stringOf(first));
}

/* el.classList.contains('seat') → ".seat"; el.matches('.cell') / el.closest('li') as written */
function target(checks, method, object, text) {
    if (!text || text.length > MAX_TEXT || checks.targets.size >= MAX_ENTRIES) return;
    if (method === 'contains' && nameOf(object) === 'classList' && CLASS_NAME.test(text)) checks.targets.add('.' + text);
    else if (SELECTOR_TESTS.has(method) && !isConstant(object)) checks.targets.add(text);
}

/* COUPONS[code]: a table looked up by a value read at run time */
function noteMember(checks, node) {
    if (node.computed && !isConstant(node.property)) checks.tableUses.add(nameOf(node.object));
}

function noteAssignment(checks, node) {
    const name = nameOf(node.left);
    if (name === 'pattern') attribute(checks, stringOf(node.right));
    bind(checks, name, node.right);
}

/* What each kind of node tells, by its type. */
const NOTES = new Map([
    ['BinaryExpression', noteBinary],
    ['SwitchStatement', noteSwitch],
    ['CallExpression', noteCall], ['OptionalCallExpression', noteCall],
    ['MemberExpression', noteMember], ['OptionalMemberExpression', noteMember],
    ['AssignmentExpression', noteAssignment],
    ['VariableDeclarator', (checks, node) => bind(checks, node.id.type === 'Identifier' ? node.id.name : null, node.init)],
    ['ObjectProperty', (checks, node) => bind(checks, node.computed ? null : nameOf(node.key) || stringOf(node.key), node.value)],
    ['JSXAttribute', (checks, node) => {
        if (node.name && node.name.name === 'pattern') attribute(checks, stringOf(node.value));
    }]
]);

function noteCheck(checks, node) {
    const note = NOTES.get(node.type);
    if (note) note(checks, node);
}

/* The lists, with what was bound by name added where a use of that name was seen. */
function checkFacts(checks) {
    for (const name of checks.listUses) for (const s of checks.lists.get(name) || []) literal(checks, s);
    for (const name of checks.tableUses) for (const k of checks.tables.get(name) || []) literal(checks, k);
    for (const name of checks.regexUses) pattern(checks, checks.regexes.get(name));
    return { literals: [...checks.literals], patterns: [...checks.patterns.values()], numbers: [...checks.numbers],
        targets: [...checks.targets] };
}

module.exports = { startChecks, noteCheck, checkFacts, stringOf, nameOf };
