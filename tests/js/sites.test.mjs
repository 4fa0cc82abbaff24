// Where Istanbul put its counters (pipeline/stages/instrumenting/sites.js): the
// offsets coverage is credited at, on code instrumented by the real Istanbul.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import test from 'node:test';
import { instrument, stage, tools } from './tools.mjs';

const { sitesOf, handlerSitesOf, builtSitesOf } = stage('./sites.js');
const babel = { parser: tools('@babel/parser'), traverse: tools('@babel/traverse').default };

const APP = `function add(a, b) { if (a > b) { return a - b; } return a + b; }
document.querySelector('button').onclick = () => add(1, 2);`;

// The text at each offset must be an increment of that counter.
const incrementAt = (code, offset) => /^[A-Za-z_$][\w$]*\(\)\.[sfb]\[\d+\](\[\d+\])?\+\+/.exec(code.slice(offset))?.[0];

test('sitesOf: one site per counter of the file, each an increment of its own counter function', () => {
  const { code, fc } = instrument(APP, 'js/app.js');
  const sites = sitesOf(code, 'js/app.js');
  assert.equal(sites.sha256, crypto.createHash('sha256').update(code, 'utf8').digest('hex'));
  assert.deepEqual(Object.keys(sites.s).sort(), Object.keys(fc.statementMap).sort());
  assert.deepEqual(Object.keys(sites.f).sort(), Object.keys(fc.fnMap).sort());
  for (const [id, offsets] of Object.entries(sites.s)) {
    assert.equal(offsets.length, 1);
    assert.match(incrementAt(code, offsets[0]), new RegExp(`^cov_\\w+\\(\\)\\.s\\[${id}\\]\\+\\+$`));
  }
  const ifArms = sites.b[Object.keys(fc.branchMap).find((b) => fc.branchMap[b].type === 'if')];
  assert.equal(ifArms.length, 2, 'both arms of the if, each with its site');
  for (const arm of ifArms) assert.equal(arm.length, 1);
});

test("sitesOf fails closed: another key's counters, or a look-alike, are no sites", () => {
  const { code } = instrument(APP, 'js/app.js');
  const other = sitesOf(code, 'js/other.js');
  assert.deepEqual([other.s, other.f, other.b], [{}, {}, {}]);
  // a page that calls a look-alike counter before the real one declares it
  const forged = 'cov_fake().s[0]++;' + code;
  const sites = sitesOf(forged, 'js/app.js');
  assert.ok(Object.values(sites.s).flat().every((at) => at >= 'cov_fake().s[0]++;'.length));
});

test('handlerSitesOf: counters of the page\'s first script, called from a handler attribute', () => {
  const { code } = instrument(APP, 'index.html#0');
  const name = /function (cov_[A-Za-z0-9_$]+)\(\)\{/.exec(code)[1];
  const attribute = `${name}().s[3]++;${name}().f[1]++;go()`;
  const sites = handlerSitesOf(attribute, 'index.html#0');
  assert.deepEqual(sites.s, { 3: [0] });
  assert.deepEqual(sites.f, { 1: [attribute.indexOf(`${name}().f`)] });
  assert.deepEqual(handlerSitesOf(attribute, 'index.html#1').s, {});
});

test("builtSitesOf: a bundle's counters by the function that declares the key, whatever the minifier named it", () => {
  const one = instrument('export function a() { return 1; }', 'src/a.js', true).code;
  const two = instrument('export function b(x) { return x ? 2 : 3; }', 'src/b.js', true).code;
  // a bundler's way: both modules in one script, their counter functions renamed alike
  const rename = (code, to) => code.replace(/cov_[A-Za-z0-9_$]+/g, to).replace(/^export /gm, '');
  const bundle = `(function(){${rename(one, 'M')}})();(function(){${rename(two, 'M')}})();`;
  const found = builtSitesOf(bundle, ['src/a.js', 'src/b.js', 'src/c.js'], babel);
  assert.deepEqual(Object.keys(found).sort(), ['src/a.js', 'src/b.js']);
  for (const [key, sites] of Object.entries(found)) {
    assert.equal(sites.sha256, crypto.createHash('sha256').update(bundle, 'utf8').digest('hex'));
    const offsets = [...Object.values(sites.s), ...Object.values(sites.f)].flat();
    assert.ok(offsets.length > 0, key);
    for (const at of offsets) assert.ok(incrementAt(bundle, at), `${key} at ${at}`);
  }
  const aStart = bundle.indexOf('})();');
  assert.ok(Object.values(found['src/a.js'].s).flat().every((at) => at < aStart), "a's sites are in a's module");
  assert.ok(Object.values(found['src/b.js'].s).flat().every((at) => at > aStart), "b's in b's");
  assert.equal(found['src/b.js'].b[Object.keys(found['src/b.js'].b)[0]].length, 2, 'both arms of the conditional');
});

test("builtSitesOf: Oxc's minifier (Vite 8) writes the key as a template literal, and it is still the key", () => {
  const one = instrument('export function a() { return 1; }', 'src/App.vue', true).code;
  const bundle = `(function(){${one.replace(/cov_[A-Za-z0-9_$]+/g, 'M').replace(/^export /gm, '')
    .replace(/"src\/App\.vue"/g, '`src/App.vue`')}})();`;
  assert.ok(bundle.includes('var path=`src/App.vue`'), bundle.slice(0, 200));
  const found = builtSitesOf(bundle, ['src/App.vue'], babel);
  assert.deepEqual(Object.keys(found), ['src/App.vue']);
  assert.ok(Object.values(found['src/App.vue'].f).flat().every((at) => incrementAt(bundle, at)));
});
