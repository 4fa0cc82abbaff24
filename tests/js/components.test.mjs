// Counters in compiled components (pipeline/stages/instrumenting/js/components.cjs):
// which module ids are a component's script, and where its counters say they are — on
// a Svelte component compiled for real by Svelte's own compiler, with its source map.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'node:test';
import { fileURLToPath } from 'node:url';
import { tools } from './tools.mjs';

process.env.IWC_NODE_TOOLS = fileURLToPath(new URL('../../pipeline/kits/node/node_modules', import.meta.url));
const { createRequire } = await import('node:module');
const stage = createRequire(new URL('../../pipeline/stages/instrumenting/js/', import.meta.url));
const components = stage('./components.cjs');

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'iwc-components-')));
fs.mkdirSync(path.join(root, 'src'));
const at = (rel) => path.join(root, rel);

test('componentKey: the script of the app\'s own components, by the path in the project', () => {
  const key = (id, code) => components.componentKey(root, id, code);
  assert.equal(key(at('src/App.svelte')), 'src/App.svelte');
  assert.equal(key(at('src/App.vue?vue&type=script&setup=true&lang.ts')), 'src/App.vue');
  // a Vue main module that imports its TypeScript script keeps only the template's render
  assert.equal(key(at('src/A.vue'), `import s from "${at('src/A.vue')}?vue&type=script&lang.ts"`), 'src/A.vue#template');
  assert.equal(key(at('src/pages/a.astro?astro&type=script&index=0&lang.ts')), 'src/pages/a.astro');
  assert.equal(key(at('src/pages/a.astro?astro&type=script&index=2&lang.ts')), 'src/pages/a.astro#script-3');
  assert.equal(key(at('src/App.vue?vue&type=style&index=0&scoped=abc&lang.css')), null);
  assert.equal(key(at('src/App.svelte?svelte&type=style&lang.css')), null);
  assert.equal(key(at('node_modules/lib/Button.svelte')), null);
  assert.equal(key(at('src/main.ts')), null); // a script file: the pre plugin's
  assert.equal(key('\0virtual:App.svelte'), null);
});

const SVELTE = `<script>
  let count = $state(0)
  let log = $state([])

  function increment() {
    count += 1
    log.push(count)
  }
</script>

<button onclick={increment}>Count {count}</button>
<button onclick={() => (count = 0)}>Reset</button>
{#each log as n}<i>{n}</i>{/each}
`;

test('a compiled component is counted on the lines it was written on, the compiler\'s glue not at all', () => {
  const file = at('src/Counter.svelte');
  fs.writeFileSync(file, SVELTE);
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'iwc-records-'));
  process.env.IWC_COVERAGE_OUT = out;
  const { compile } = tools('svelte/compiler');
  const { js } = compile(SVELTE, { filename: file, generate: 'client' });
  js.map.sources = [file]; // as the Vite plugin's combined map names it
  const result = components.instrument(root, file, js.code, js.map);
  assert.ok(result && result.code.includes('src/Counter.svelte'), 'instrumented');
  const [record] = fs.readdirSync(out).map((f) => JSON.parse(fs.readFileSync(path.join(out, f), 'utf8')));
  assert.equal(record.key, 'src/Counter.svelte');
  assert.equal(record.source, SVELTE); // the file as written
  const lines = SVELTE.split('\n');
  const fns = Object.values(record.coverage.fnMap).map((f) => [f.name, lines[f.loc.start.line - 1].trim()]);
  assert.ok(fns.some(([name, line]) => name === 'increment' && line === 'function increment() {'), JSON.stringify(fns));
  // the template's handler, on the template's line
  assert.ok(fns.some(([, line]) => line.startsWith('<button onclick={() => (count = 0)}>')), JSON.stringify(fns));
  // nothing of Svelte's own code (the component function, $.template, $.each) is counted:
  // every statement sits on a line of the component that holds code of the author's
  for (const loc of Object.values(record.coverage.statementMap)) {
    assert.ok(loc.start.line >= 1 && loc.end.line <= lines.length, JSON.stringify(loc));
    assert.notEqual(lines[loc.start.line - 1].trim(), '', JSON.stringify(loc));
  }
  assert.ok(!fns.some(([name]) => name === 'Counter'), 'the compiled component function is glue');
});

test('a Vue template handler compiled into JavaScript setup code is counted on its template line', () => {
  // (tests/js/fixtures/vue-inline: @vitejs/plugin-vue's output for a JavaScript
  // <script setup>; its arrow function for @click="tally++" starts between two mapped
  // tokens, and shifting the earlier one by the distance put it past its own end)
  const fixture = new URL('./fixtures/vue-inline/', import.meta.url);
  const source = fs.readFileSync(new URL('Tally.vue', fixture), 'utf8');
  const file = at('src/Tally.vue');
  fs.writeFileSync(file, source);
  const code = fs.readFileSync(new URL('Tally.vue.compiled.js', fixture), 'utf8');
  const map = JSON.parse(fs.readFileSync(new URL('Tally.vue.map.json', fixture), 'utf8'));
  map.sources = [file];
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'iwc-records-'));
  process.env.IWC_COVERAGE_OUT = out;
  const result = components.instrument(root, file, code, map);
  assert.ok(result, 'instrumented');
  const [record] = fs.readdirSync(out).map((f) => JSON.parse(fs.readFileSync(path.join(out, f), 'utf8')));
  const lines = source.split('\n');
  const fns = Object.values(record.coverage.fnMap).map((f) => [f.name, lines[f.loc.start.line - 1].trim(),
    f.loc.start.column <= f.loc.end.column || f.loc.start.line < f.loc.end.line]);
  assert.ok(fns.some(([name, line]) => name === 'reset' && line === 'function reset() {'), JSON.stringify(fns));
  assert.ok(fns.some(([, line]) => line.includes('@click="tally++"')), JSON.stringify(fns));
  assert.ok(fns.every(([, , ordered]) => ordered), JSON.stringify(fns));
});
