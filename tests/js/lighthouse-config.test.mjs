// The quality stage's Lighthouse config (pipeline/stages/quality/lighthouse.mjs): only
// the audits that carry weight, so the three categories score as Lighthouse's default
// config scores them, without the diagnostics and their gatherers.
import assert from 'node:assert/strict';
import test from 'node:test';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { weightedConfig } from '../../pipeline/stages/quality/lighthouse.mjs';

const modules = new URL('../../pipeline/kits/node/node_modules/', import.meta.url);
const load = async (rel) => import(pathToFileURL(path.join(modules.pathname, rel)).href);
const CATEGORIES = ['performance', 'accessibility', 'best-practices'];

test('the config keeps every weighted audit of the three categories and nothing else, and the default weights', async () => {
  const defaults = (await load('lighthouse/core/config/default-config.js')).default;
  const config = weightedConfig(defaults);
  assert.deepEqual(Object.keys(config.categories), CATEGORIES);
  for (const c of CATEGORIES) {
    const scored = defaults.categories[c].auditRefs.filter((r) => r.weight > 0);
    assert.deepEqual(config.categories[c].auditRefs, scored, c);
  }
  const kept = config.audits.map((a) => (typeof a === 'string' ? a : a.path).split('/').pop()).sort();
  const wanted = CATEGORIES.flatMap((c) => config.categories[c].auditRefs.map((r) => r.id)).sort();
  assert.deepEqual(kept, [...new Set(wanted)]);
});

test('Lighthouse resolves it to the weighted audits and fewer gatherers than its default', async () => {
  const { initializeConfig } = await load('lighthouse/core/config/config.js');
  const defaults = (await load('lighthouse/core/config/default-config.js')).default;
  const ours = (await initializeConfig('navigation', weightedConfig(defaults), { disableFullPageScreenshot: true })).resolvedConfig;
  const before = (await initializeConfig('navigation', undefined, { onlyCategories: CATEGORIES, disableFullPageScreenshot: true })).resolvedConfig;
  const ids = (audits) => audits.map((a) => a.implementation.meta.id);
  const weighted = CATEGORIES.flatMap((c) => before.categories[c].auditRefs.filter((r) => r.weight > 0).map((r) => r.id));
  assert.deepEqual(new Set(ids(ours.audits)), new Set(weighted));
  assert.ok(ours.artifacts.length < before.artifacts.length);
  for (const gatherer of ['JsUsage', 'CSSUsage', 'BFCacheFailures']) {
    assert.ok(!ours.artifacts.some((a) => a.id === gatherer), gatherer);
  }
  for (const needed of ['Trace', 'DevtoolsLog', 'Accessibility', 'ConsoleMessages']) {
    assert.ok(ours.artifacts.some((a) => a.id === needed), needed);
  }
});

test('after the first run the in-page CPU benchmark answers the index that run measured, as page source', async () => {
  const { remember } = await import('../../pipeline/stages/quality/lighthouse.mjs');
  const { pageFunctions } = await load('lighthouse/core/lib/page-functions.js');
  const measuring = pageFunctions.computeBenchmarkIndex;
  const k = { pageFunctions, benchmarkIndex: null };
  for (const bad of [undefined, null, 0, -3, Number.NaN]) remember(k, bad);
  assert.equal(pageFunctions.computeBenchmarkIndex, measuring, 'no index, nothing remembered');
  remember(k, 3898.5);
  remember(k, 1200);  // a later run's index does not replace the first
  assert.equal(k.benchmarkIndex, 3898.5);
  // Lighthouse's ExecutionContext.evaluate sends `(${fn})(args)` to the page.
  assert.equal(new Function(`return (${pageFunctions.computeBenchmarkIndex})();`)(), 3898.5);
});

test('performance is the median run: two equal scores settle it, else the middle of three', async () => {
  const { median } = await import('../../pipeline/stages/quality/lighthouse.mjs');
  assert.equal(median([96]), null, 'one run: run again');
  assert.equal(median([96, 96]), 0, 'two equal: the median whatever a third gives');
  assert.equal(median([89, 96]), null);
  assert.equal(median([89, 96, 97]), 1);
  assert.equal(median([97, 89, 96]), 2);
  assert.equal(median([89, 96, 89]), 0);
  assert.equal(median([70], 1), 0, 'one run allowed: that run');
});

test('the performance-only config keeps its weighted audits and none of the other categories', async () => {
  const defaults = (await load('lighthouse/core/config/default-config.js')).default;
  const config = weightedConfig(defaults, ['performance']);
  assert.deepEqual(Object.keys(config.categories), ['performance']);
  const kept = config.audits.map((a) => (typeof a === 'string' ? a : a.path).split('/').pop()).sort();
  assert.deepEqual(kept, config.categories.performance.auditRefs.map((r) => r.id).sort());
  assert.ok(!kept.includes('color-contrast') && !kept.includes('errors-in-console'));
});
