// The quality stage's static tools (a job of server.mjs).
//
// job:    {"units": [{"name", "language": "html"|"vue"|"svelte"|"astro"|"css"|"scss"|"less"|"js"|"ts",
//          "text", "skeleton", "first_line", "module", "jsx"}], "words": ["..."]}
// answer: {"versions", "lint": [...], "fatal": [...], "clones": [...], "comments": {...},
//          "handling": {...}, "unlinted": [{unit, language, reason}], "unknown_words": [...],
//          "errors": {step: message}}
//
// Linting: HTMLHint (default ruleset) on pages, Stylelint (stylelint-config-recommended) on
// CSS (a component's <style> blocks too), ESLint (@eslint/js recommended; no-undef off
// because a page's scripts share globals with each other and with CDN libraries, and
// top-level names exempt from no-unused-vars because inline handlers call them, as are the
// names JSX uses and those of an Astro component's script, which its template reads) on
// JavaScript; on TypeScript with typescript-eslint's parser and recommended rules; on a
// whole Vue or Svelte component with eslint-plugin-vue's essential rules or
// eslint-plugin-svelte's recommended ones (their parsers read template and script, with
// typescript-eslint's parser for lang="ts"; their script blocks are not linted again).
// TypeScript typescript-eslint's parser refuses but Babel reads (an Astro frontmatter's
// top-level return) gets @eslint/js's rules on its code with the types blanked out
// (dialects.mjs; positions stay, so lines are the file's). What no installed tool reads —
// an Astro template (HTMLHint wants whole pages), SCSS and Less (Stylelint needs a syntax
// package for them), TypeScript neither parser could read — is listed in "unlinted",
// never counted as a defect. Duplication:
// jscpd's detector in each unit's own language. Comments and error-handling facts: the
// Babel parse tree (typescript plugin for TypeScript). Spelling: nspell with the en-US and
// en-GB Hunspell dictionaries. Tools load once per server and are reused. It reads only
// the job and the tool folder and never runs the app's code.
import fs from 'fs';
import path from 'path';
import { pathToFileURL, fileURLToPath } from 'url';
import { jsxNames, pluginsOf, stripTypes, topNames } from './dialects.mjs';

let tools = null;
let job = null;
let out = null;
let units = [];
const loaded = {};

function entry(name) {
  const dir = path.join(tools, name);
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  let e = pkg.exports;
  if (e && typeof e === 'object' && '.' in e) e = e['.'];
  const pick = (x) => (typeof x === 'string' ? x : x && (pick(x.import) || pick(x.default) || pick(x.node)));
  return pathToFileURL(path.join(dir, pick(e) || pkg.module || pkg.main || 'index.js')).href;
}
const load = async (name) => {
  if (!(name in loaded)) { const m = await import(entry(name)); loaded[name] = m.default ?? m; }
  return loaded[name];
};
const version = (name) => JSON.parse(fs.readFileSync(path.join(tools, name, 'package.json'), 'utf8')).version;
const shift = (u, line) => (line || 1) + (u.first_line || 1) - 1;

// ---- linting ---------------------------------------------------------------------
const LINTED = ['**/*.js', '**/*.ts', '**/*.tsx', '**/*.vue', '**/*.svelte'];  // the names units are linted under
async function lintAll() {
  const { HTMLHint } = await load('htmlhint');
  out.versions.htmlhint = version('htmlhint');
  const stylelint = await load('stylelint');
  out.versions.stylelint = version('stylelint');
  const recommended = fileURLToPath(entry('stylelint-config-recommended'));
  const eslintOn = await eslintRunner();
  // Vue and Svelte components are linted whole by their plugins: their script blocks not again
  const whole = new Set(units.filter((u) => u.language === 'vue' || u.language === 'svelte').map((u) => u.name));
  for (const u of units) {
    if (u.language === 'ts' || u.language === 'js') {
      if (u.component && whole.has(u.name.split('#')[0])) continue;
      lintScript(eslintOn, u);
    } else if (u.language === 'vue' || u.language === 'svelte') {
      const typescript = /<script\b[^>]*\blang\s*=\s*["']tsx?["']/i.test(u.text);
      reportESLint(u, eslintOn(u, u.text, typescript), false);
    } else if (u.language === 'astro') {
      out.unlinted.push({ unit: u.name, language: u.language, reason: 'a component template (HTMLHint reads whole HTML pages); its script and style blocks are linted' });
    } else if (u.language === 'scss' || u.language === 'less') {
      out.unlinted.push({ unit: u.name, language: u.language, reason: `no Stylelint syntax for ${u.language.toUpperCase()} is installed (postcss-${u.language})` });
    } else if (u.language === 'html') {
      for (const m of HTMLHint.verify(u.text, HTMLHint.defaultRuleset)) {
        out.lint.push({ unit: u.name, tool: 'htmlhint', rule: m.rule.id, severity: m.type === 'error' ? 'error' : 'warning',
          line: m.line, message: m.message });
      }
    } else if (u.language === 'css') {
      const result = await stylelint.lint({ code: u.text, config: { extends: [recommended] } });
      for (const w of result.results[0].warnings) {
        if (w.rule === 'CssSyntaxError') out.fatal.push({ unit: u.name, tool: 'stylelint', line: shift(u, w.line), message: w.text });
        else out.lint.push({ unit: u.name, tool: 'stylelint', rule: w.rule, severity: w.severity === 'error' ? 'error' : 'warning',
          line: shift(u, w.line), message: w.text });
      }
    }
  }
}

// ESLint on one unit, `eslintOn(u, text, typescript)`: @eslint/js's recommended rules,
// typescript-eslint's recommended (its parser) for TypeScript, eslint-plugin-vue's essential
// rules and eslint-plugin-svelte's recommended ones on a whole component (their parsers read
// the template and the script, with typescript-eslint's parser for a lang="ts" script), our
// exemptions last.
async function eslintRunner() {
  const { Linter } = await load('eslint');
  const js = await load('@eslint/js');
  const globals = await load('globals');
  out.versions.eslint = version('eslint');
  const linter = new Linter({ configType: 'flat' });
  globalThis.babelParser = globalThis.babelParser || await load('@babel/parser');
  const ts = await load('typescript-eslint');
  const vue = await load('eslint-plugin-vue');
  const svelte = await load('eslint-plugin-svelte');
  out.versions['typescript-eslint'] = version('typescript-eslint');
  out.versions['eslint-plugin-vue'] = version('eslint-plugin-vue');
  out.versions['eslint-plugin-svelte'] = version('eslint-plugin-svelte');
  const unused = { vars: 'local', args: 'none', caughtErrors: 'none' };
  const rules = { ...js.configs.recommended.rules, 'no-undef': 'off', 'no-unused-vars': ['warn', unused] };
  const language = (u) => ({ ecmaVersion: 'latest', sourceType: u.module ? 'module' : 'script',
    globals: { ...globals.browser }, parserOptions: { ecmaFeatures: { jsx: true } } });
  return (u, text, typescript) => {
    // a component script linted apart from its template: the template reads its top-level
    // names; JSX uses names ESLint's core never counts as used (<App />)
    const used = [...(u.component ? topNames(globalThis.babelParser, u) : []), ...jsxNames(globalThis.babelParser, u)];
    const options = used.length ? { ...unused, varsIgnorePattern: `^(${used.map((n) => n.replace(/\$/g, '\\$')).join('|')})$` } : unused;
    const whole = u.language === 'vue' || u.language === 'svelte';
    const file = whole ? `component.${u.language}` : `unit.${typescript ? (u.jsx ? 'tsx' : 'ts') : 'js'}`;
    const config = [{ files: LINTED, rules, languageOptions: language(u) }];
    if (typescript) config.push(...ts.configs.recommended);
    if (u.language === 'vue') config.push(...vue.configs['flat/essential']);
    if (u.language === 'svelte') config.push(...svelte.configs['flat/recommended']);
    if (whole && typescript) {
      config.push({ files: [`**/*.${u.language}`], languageOptions: { parserOptions: { parser: ts.parser,
        extraFileExtensions: [`.${u.language}`], sourceType: 'module' } } });
    }
    const own = { 'no-unused-vars': typescript ? 'off' : ['warn', options] };
    if (typescript) own['@typescript-eslint/no-unused-vars'] = ['warn', options];
    config.push({ files: LINTED, rules: own });
    return linter.verify(text, config, file);
  };
}

function reportESLint(u, found, shiftLines = true) {
  for (const m of found) {
    const line = shiftLines ? shift(u, m.line) : m.line;
    if (m.fatal) out.fatal.push({ unit: u.name, tool: 'eslint', line, message: m.message });
    else out.lint.push({ unit: u.name, tool: 'eslint', rule: m.ruleId, severity: m.severity === 2 ? 'error' : 'warning',
      line, message: m.message });
  }
}

// A JavaScript or TypeScript unit; TypeScript that typescript-eslint's parser refused but
// Babel may read (an Astro frontmatter's top-level return) gets @eslint/js's rules on the
// code with its types blanked out.
function lintScript(eslintOn, u) {
  const typescript = u.language === 'ts';
  const found = eslintOn(u, u.text, typescript);
  const fatal = found.find((m) => m.fatal);
  if (!fatal || !typescript) {
    reportESLint(u, found);
    return;
  }
  const stripped = stripTypes(globalThis.babelParser, u);
  if (stripped.error) {
    out.fatal.push({ unit: u.name, tool: 'babel', line: shift(u, stripped.line), message: stripped.error });
    return;
  }
  const blanked = eslintOn(u, stripped.text, false);
  const still = blanked.find((m) => m.fatal);
  if (still) {  // our blanking's gap, not the app's error: Babel parsed the file
    out.unlinted.push({ unit: u.name, language: 'ts', reason: `TypeScript neither typescript-eslint nor the type blanking could read (${fatal.message})` });
    return;
  }
  reportESLint(u, blanked);
}

// ---- duplication -----------------------------------------------------------------
async function duplication() {
  const core = await load('@jscpd/core');
  const tokenizer = await load('@jscpd/tokenizer');
  out.versions.jscpd = version('@jscpd/core');
  const formats = { js: 'javascript', ts: 'typescript', css: 'css', scss: 'scss', less: 'less', html: 'markup',
    vue: 'markup', svelte: 'markup', astro: 'markup' };
  const detector = new core.Detector(new tokenizer.Tokenizer(), new core.MemoryStore(), [],
    { minTokens: 50, minLines: 5, maxLines: 100000, mode: core.mild });
  for (const u of units) {
    const text = u.skeleton ?? u.text;
    const format = u.language === 'ts' && u.jsx ? 'tsx' : formats[u.language];
    const clones = await detector.detect(u.name, text, format);
    for (const c of clones) {
      out.clones.push({ format: c.format,
        a: { unit: c.duplicationA.sourceId, start: c.duplicationA.start.line, end: c.duplicationA.end.line },
        b: { unit: c.duplicationB.sourceId, start: c.duplicationB.start.line, end: c.duplicationB.end.line } });
    }
  }
}

// ---- the Babel tree: comments and error handling -------------------------------------
// Calls that throw on bad input or a refusing browser: guarded by try.
const RISKY_CALLS = new Set(['JSON.parse', 'decodeURIComponent', 'decodeURI', 'atob', 'eval',
  'localStorage.getItem', 'localStorage.setItem', 'localStorage.removeItem', 'localStorage.clear',
  'sessionStorage.getItem', 'sessionStorage.setItem', 'sessionStorage.removeItem', 'indexedDB.open']);
const RISKY_NEW = new Set(['URL', 'WebSocket', 'Function', 'Worker']);
// Calls whose failure is a rejected promise: guarded by a rejection handler or an awaited try.
const ASYNC_RISKY = new Set(['fetch', 'navigator.clipboard.writeText', 'navigator.clipboard.readText',
  'navigator.mediaDevices.getUserMedia', 'Notification.requestPermission']);
const ASYNC_METHODS = new Set(['json']);  // response.json()
const CHAIN = ['then', 'catch', 'finally'];
const VALIDATORS = new Set(['isNaN', 'isFinite', 'checkValidity', 'reportValidity', 'test', 'match',
  'trim', 'isInteger', 'isSafeInteger', 'setCustomValidity']);
const FUNCTION = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression',
  'ObjectMethod', 'ClassMethod', 'ClassPrivateMethod']);

function dotted(node) {
  if (!node) return null;
  if (node.type === 'Identifier') return node.name;
  if (node.type === 'ThisExpression') return 'this';
  if ((node.type === 'MemberExpression' || node.type === 'OptionalMemberExpression') && !node.computed) {
    const left = dotted(node.object);
    return left && node.property.type === 'Identifier' ? `${left}.${node.property.name}` : null;
  }
  return null;
}
const strip = (name) => (name || '').replace(/^(window|globalThis|self)\./, '');
const propName = (member) => (member && !member.computed && member.property && member.property.type === 'Identifier'
  ? member.property.name : null);

function analyse(u) {
  const parser = globalThis.babelParser;
  let ast;
  try {
    ast = parser.parse(u.text, { sourceType: u.module ? 'module' : 'script', errorRecovery: true,
      allowReturnOutsideFunction: true, plugins: pluginsOf(u) });
  } catch {
    return { parsed: false };
  }
  const commentLines = new Set();
  for (const c of ast.comments || []) {
    for (let l = c.loc.start.line; l <= c.loc.end.line; l += 1) commentLines.add(shift(u, l));
  }
  const facts = { parsed: true, risky: [], chains: [], awaits: [], readers: [] };
  const tree = { u, facts, fnStack: [frame(1)] };
  walkTree(tree, ast.program, []);
  const top = tree.fnStack[0];
  if (top.reads) facts.readers.push({ line: shift(u, 1), validates: top.tested || top.checks });
  return { parsed: true, facts, commentLines: [...commentLines].sort((a, b) => a - b) };
}

// What a function (or the top level) does with input it reads.
const frame = (line) => ({ reads: false, tested: false, checks: false, names: new Set(), line });

// `parents`: each entry {node, key} from the root to the current node
function walkTree(tree, node, parents) {
  if (!node || typeof node.type !== 'string') return;
  const here = [...parents, node];
  const isFn = FUNCTION.has(node.type);
  if (isFn) tree.fnStack.push(frame(node.loc ? node.loc.start.line : 1));
  visitNode(tree, node, parents);
  for (const key of Object.keys(node)) {
    if (key === 'loc' || key === 'leadingComments' || key === 'trailingComments' || key === 'innerComments') continue;
    const value = node[key];
    if (Array.isArray(value)) { for (const child of value) if (child && typeof child.type === 'string') walkTree(tree, child, here.concat([{ key }])); }
    else if (value && typeof value.type === 'string') walkTree(tree, value, here.concat([{ key }]));
  }
  if (isFn) {
    const fn = tree.fnStack.pop();
    if (fn.reads) tree.facts.readers.push({ line: shift(tree.u, fn.line), validates: fn.tested || fn.checks });
  }
}

// parents alternate: node, {key}, node, {key}, ...
function inTry(parents) {
  for (let i = parents.length - 1; i >= 1; i -= 1) {
    const p = parents[i];
    if (p.type && FUNCTION.has(p.type)) return false;
    if (p.type === 'TryStatement' && parents[i + 1] && parents[i + 1].key === 'block') return true;
  }
  return false;
}

// the chain a call heads: walk up while this expression is the object of .then/.catch/.finally
function chainHandled(parents) {
  let handled = false;
  for (let i = parents.length - 1; i >= 1; i -= 2) {
    const keyInfo = parents[i];
    const parent = parents[i - 1];
    if (!parent || !keyInfo) break;
    if ((parent.type === 'MemberExpression' || parent.type === 'OptionalMemberExpression') && keyInfo.key === 'object') {
      const name = propName(parent);
      const call = parents[i - 3];
      if (CHAIN.includes(name) && call && call.type === 'CallExpression' && parents[i - 2] && parents[i - 2].key === 'callee') {
        if (name === 'catch' || (name === 'then' && call.arguments.length >= 2)) handled = true;
        i -= 2;
        continue;
      }
    }
    if (parent.type === 'AwaitExpression' || parent.type === 'ReturnStatement'
        || (parent.type === 'ArrowFunctionExpression' && keyInfo.key === 'body')) {
      // awaited in a try, or handed to the caller, which decides
      return handled || parent.type !== 'AwaitExpression' || inTry(parents.slice(0, i));
    }
    break;
  }
  return handled;
}

function visitNode(tree, node, parents) {
  const fn = tree.fnStack[tree.fnStack.length - 1];
  if (node.type === 'CallExpression' || node.type === 'OptionalCallExpression' || node.type === 'NewExpression') {
    visitCall(tree, node, parents, fn);
  }
  if (node.type === 'AwaitExpression' && node.argument && node.argument.type !== 'Identifier') {
    tree.facts.awaits.push({ line: shift(tree.u, node.loc.start.line), handled: inTry(parents) });
  }
  if ((node.type === 'MemberExpression' || node.type === 'OptionalMemberExpression')
      && ['value', 'valueAsNumber', 'files'].includes(propName(node))) {
    const key = parents[parents.length - 1];
    const parent = parents[parents.length - 2];
    const assigned = parent && parent.type === 'AssignmentExpression' && key && key.key === 'left';
    if (!assigned) {
      fn.reads = true;
      if (parent && parent.type === 'VariableDeclarator' && parent.id.type === 'Identifier') fn.names.add(parent.id.name);
      if (inTest(parents)) fn.tested = true;
    }
  }
  if (node.type === 'VariableDeclarator' && node.id.type === 'Identifier' && node.init && mentionsRead(node.init)) fn.names.add(node.id.name);
  if (node.type === 'Identifier' && fn.names.has(node.name) && inTest(parents)) fn.tested = true;
}

// A call: risky (and whether guarded), the head of a promise chain (and whether
// handled), a validator (the function checks its input).
function visitCall(tree, node, parents, fn) {
  const { facts } = tree;
  const name = strip(dotted(node.callee));
  const method = propName(node.callee);
  const line = shift(tree.u, node.loc ? node.loc.start.line : 1);
  const sync = node.type === 'NewExpression' ? RISKY_NEW.has(name) : RISKY_CALLS.has(name);
  const later = node.type !== 'NewExpression'
    && (ASYNC_RISKY.has(name) || (method && ASYNC_METHODS.has(method) && node.arguments.length === 0));
  if (sync || later) {
    facts.risky.push({ call: node.type === 'NewExpression' ? `new ${name}` : (name || `.${method}()`), line,
      guarded: sync ? inTry(parents) : chainHandled(parents) });
  }
  if (CHAIN.includes(method) && !isChained(parents)) {
    const methods = [];
    for (let cur = node; cur && cur.type.endsWith('CallExpression') && CHAIN.includes(propName(cur.callee)); cur = cur.callee.object) {
      methods.push([propName(cur.callee), cur.arguments.length]);
    }
    if (methods.some(([m]) => m === 'then')) {
      const handled = methods.some(([m, n]) => m === 'catch' || (m === 'then' && n >= 2)) || chainHandled(parents);
      facts.chains.push({ line, handled });
    }
  }
  if ((name && VALIDATORS.has(name.split('.').pop())) || (method && VALIDATORS.has(method))) fn.checks = true;
}

function isChained(parents) {
  const keyInfo = parents[parents.length - 1];
  const parent = parents[parents.length - 2];
  return parent && (parent.type === 'MemberExpression' || parent.type === 'OptionalMemberExpression')
    && keyInfo && keyInfo.key === 'object' && ['then', 'catch', 'finally'].includes(propName(parent));
}

function inTest(parents) {
  for (let i = parents.length - 1; i >= 1; i -= 2) {
    const keyInfo = parents[i];
    const parent = parents[i - 1];
    if (!parent || !keyInfo) return false;
    if (FUNCTION.has(parent.type)) return false;
    if (['IfStatement', 'ConditionalExpression', 'WhileStatement', 'DoWhileStatement'].includes(parent.type) && keyInfo.key === 'test') return true;
    if (parent.type === 'LogicalExpression' && keyInfo.key === 'left') return true;
    if (parent.type === 'UnaryExpression' && parent.operator === '!') return true;
    if (parent.type === 'BinaryExpression' && ['===', '!==', '==', '!=', '<', '>', '<=', '>='].includes(parent.operator)) return true;
  }
  return false;
}

function mentionsRead(node) {
  let found = false;
  (function seek(n) {
    if (found || !n || typeof n.type !== 'string') return;
    if ((n.type === 'MemberExpression' || n.type === 'OptionalMemberExpression') && ['value', 'valueAsNumber'].includes(propName(n))) { found = true; return; }
    for (const key of Object.keys(n)) {
      if (key === 'loc') continue;
      const v = n[key];
      if (Array.isArray(v)) v.forEach(seek); else if (v && typeof v.type === 'string') seek(v);
    }
  })(node);
  return found;
}

async function trees() {
  globalThis.babelParser = await load('@babel/parser');
  out.versions['@babel/parser'] = version('@babel/parser');
  for (const u of units) {
    if (u.language !== 'js' && u.language !== 'ts') continue;
    const result = analyse(u);
    if (!result.parsed) { out.handling[u.name] = null; continue; }
    out.handling[u.name] = result.facts;
    out.comments[u.name] = result.commentLines;
  }
}

// ---- spelling --------------------------------------------------------------------
const dictionaries = {};
async function dictionary(name) {
  if (!dictionaries[name]) dictionaries[name] = (await load('nspell'))(await load(name));
  return dictionaries[name];
}
async function spelling() {
  const words = job.words || [];
  if (!words.length) return;
  const us = await dictionary('dictionary-en');
  out.versions.nspell = version('nspell');
  out.versions['dictionary-en'] = version('dictionary-en');
  const unknown = words.filter((w) => !us.correct(w));
  // the British dictionary only for what the American one does not know (it is slow to load)
  const gb = unknown.length ? await dictionary('dictionary-en-gb') : null;
  out.unknown_words = gb ? unknown.filter((w) => !gb.correct(w)) : unknown;
}

// Load every tool (and the American dictionary) before the first app needs them.
export async function warm(folder) {
  tools = folder;
  for (const name of ['htmlhint', 'stylelint', 'eslint', '@eslint/js', 'globals', '@jscpd/core', '@jscpd/tokenizer', '@babel/parser']) {
    await load(name);
  }
  await dictionary('dictionary-en');
}

export async function run(request, folder) {
  tools = folder;
  job = request;
  units = job.units || [];
  out = { versions: {}, lint: [], fatal: [], clones: [], comments: {}, handling: {}, unlinted: [], unknown_words: [],
    errors: {} };
  const steps = { lint: lintAll, duplication, trees, spelling };
  for (const [name, step] of Object.entries(steps)) {
    const started = Date.now();
    try {
      await step();
    } catch (err) {
      out.errors[name] = String(err && err.stack ? err.stack.split('\n').slice(0, 3).join(' | ') : err);
    }
    out.versions[`${name}_ms`] = Date.now() - started;
  }
  return out;
}
