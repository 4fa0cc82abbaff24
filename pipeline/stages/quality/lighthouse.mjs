// Lighthouse on one page, in Debian's Chromium, with the sandbox's network rules
// (a job of server.mjs).
//
// job:    {"chrome", "url", "cdn": {"<url>": {"file", "type"}}, "limit_ms"}
// answer: {"hung": reason, "version"} when Lighthouse had not finished by limit_ms and the
//          page's main thread no longer answers (chromium.hung: the page's fault), else {"version", "categories": {id: score 0-1 | null}, "refs": {category: [audit ids]},
//          "weights": {category: {audit id: weight}}, "audits": {id: {score, value, title, mode}},
//          "performance_runs": [score 0-100 of each run], "console": [text],
//          "console_items": [{text, source, url}], "runtime_error", "seconds"}
//
// Performance is the median of up to RUNS runs (``performance``): Lighthouse simulates it
// (lantern) from the wall-clock times of the page's main-thread tasks it observed, so
// whatever else the machine runs stretches them, and one run moved by 7-8 points between
// runs of the same page on a loaded machine (docs/benchmarks.md). Lighthouse 12 uses the
// BenchmarkIndex for its slow-host warning only, so fixing it changes no score; scaling
// the CPU slowdown by a benchmark measured just before was measured beside the median
// (docs/metrics-wcb.md says which was chosen and why).
//
// Only the audits that carry weight in the performance, accessibility and
// best-practices categories run, and only the gatherers they need: the config is
// Lighthouse's default one with every other audit and every weight-0 reference left
// out, resolved once per server. A category's score is the weighted mean of its
// references, so the scores are the same; the diagnostics (and their gatherers: JS and
// CSS coverage, trace elements, the back/forward cache check, image optimisation,
// compression) are skipped. (Lighthouse's own `onlyCategories` flag would keep every
// audit of the categories, `onlyAudits` beside it adds to them, and either way the
// whole default config is resolved again on every run.) Nothing leaves the machine: every host name but the
// loopback app server fails to resolve, and the CDN files the exploration used are
// answered from the local mirror copies named in "cdn" before any lookup happens.
// It runs in the server's Chromium (chromium.mjs), in a browser context of its own.
//
// The host's CPU benchmark (Lighthouse's BenchmarkIndex: about 1 s of string and array
// work in the page before every navigation, reported in lhr.environment and used only
// for the slow-host warning, never in a score) is measured by the server's first run and
// given to the later ones (``remember``): it describes the machine, not the app.
import fs from 'fs';
import path from 'path';
import { pathToFileURL } from 'url';
import * as shared from './chromium.mjs';

const CATEGORIES = ['performance', 'accessibility', 'best-practices'];
const RUNS = 3;  // the most runs whose median is the performance score (see ``performance``)
let kit = null;

async function tools(folder) {
  if (!kit) {
    const load = async (rel) => import(pathToFileURL(path.join(folder, rel)).href);
    const mod = async (rel) => (await load(rel)).default;
    const defaults = await mod('lighthouse/core/config/default-config.js');
    kit = {
      lighthouse: await mod('lighthouse/core/index.js'),
      config: weightedConfig(defaults),
      performance: weightedConfig(defaults, ['performance']),
      version: JSON.parse(fs.readFileSync(path.join(folder, 'lighthouse', 'package.json'), 'utf8')).version,
      pageFunctions: (await load('lighthouse/core/lib/page-functions.js')).pageFunctions,
      benchmarkIndex: null,
    };
  }
  return kit;
}

// Lighthouse's default config with only the weighted audits of CATEGORIES (their
// default settings, gatherers and groups as they are). Exported for tests/js.
export function weightedConfig(defaults, categories = CATEGORIES) {
  const scored = (c) => defaults.categories[c].auditRefs.filter((r) => r.weight > 0);
  const weighted = new Set(categories.flatMap((c) => scored(c).map((r) => r.id)));
  const id = (audit) => (typeof audit === 'string' ? audit : audit.path).split('/').pop();
  return {
    artifacts: defaults.artifacts,
    groups: defaults.groups,
    audits: defaults.audits.filter((a) => weighted.has(id(a))),
    categories: Object.fromEntries(categories.map((c) => [c, { ...defaults.categories[c], auditRefs: scored(c) }])),
  };
}

// After the first run, Lighthouse's in-page CPU benchmark answers the index that run
// measured instead of measuring again (pageFunctions is the object Lighthouse's
// environment.js reads the benchmark from at every run; the function is sent to the
// page as its source text). Exported for tests/js.
export function remember(k, index) {
  if (k.benchmarkIndex !== null || !(Number.isFinite(index) && index > 0)) return;
  k.benchmarkIndex = index;
  k.pageFunctions.computeBenchmarkIndex = Function(`return ${index};`);
}

export async function warm(job, folder) {
  await tools(folder);
  await shared.chromium(job, folder);
}

const LATE = Symbol('late');

// ``running``'s value, or LATE once ``ms`` have passed (no limit without ``ms``).
async function within(running, ms) {
  if (!ms) return running;
  let timer = null;
  const late = new Promise((resolve) => { timer = setTimeout(() => resolve(LATE), ms); });
  try {
    return await Promise.race([running, late]);
  } finally {
    clearTimeout(timer);
  }
}

// One Lighthouse run with ``config`` in a browser context of its own: {result} or, past
// ``ms``, {late: hung reason | null} (``check``: whether to ask if the page hung).
async function once(job, folder, k, config, ms, check = true) {
  const cdn = job.cdn || {};
  const hosts = [...new Set(Object.keys(cdn).map((u) => new URL(u).host))];
  let context = null;
  try {
    context = await (await shared.chromium(job, folder)).createBrowserContext(shared.CONTEXT);
    const page = await context.newPage();
    if (job.quiet) await page.evaluateOnNewDocument(job.quiet);  // the page's console bounded (kits/page/quiet.mjs)
    if (hosts.length) {
      const session = await page.createCDPSession();
      await session.send('Fetch.enable', { patterns: hosts.map((h) => ({ urlPattern: `*://${h}/*` })) });
      session.on('Fetch.requestPaused', async (event) => {
        const hit = cdn[event.request.url];
        try {
          if (hit) {
            await session.send('Fetch.fulfillRequest', { requestId: event.requestId, responseCode: 200,
              responseHeaders: [{ name: 'content-type', value: hit.type }, { name: 'access-control-allow-origin', value: '*' }],
              body: fs.readFileSync(hit.file).toString('base64') });
          } else {
            await session.send('Fetch.failRequest', { requestId: event.requestId, errorReason: 'BlockedByClient' });
          }
        } catch { /* the page moved on */ }
      });
    }
    const running = k.lighthouse(job.url, { output: 'json', logLevel: 'error', disableFullPageScreenshot: true },
      config, page);
    const result = await within(running, ms);
    if (result === LATE) {
      running.catch(() => {});  // it ends when its context closes below
      return { late: check ? await shared.hung(page, await shared.chromium(job, folder)) : null };
    }
    return { result };
  } finally {
    if (context) await context.close().catch(() => {});
  }
}

export async function run(job, folder) {
  const started = Date.now();
  const k = await tools(folder);
  try {
    const first = await once(job, folder, k, k.config, job.limit_ms);
    if (first.late !== undefined) {
      if (first.late) return { hung: first.late, version: k.version, seconds: (Date.now() - started) / 1000 };
      return { error: `Lighthouse did not finish within ${job.limit_ms / 1000} s`, version: k.version };
    }
    const lhr = first.result.lhr;
    remember(k, lhr.environment?.benchmarkIndex);
    const audits = {};
    for (const [id, a] of Object.entries(lhr.audits)) {
      audits[id] = { score: a.score, value: a.numericValue ?? null, title: a.title, mode: a.scoreDisplayMode };
    }
    const runs = await performance(job, folder, k, lhr, audits, started);
    return {
      version: k.version,
      categories: Object.fromEntries(CATEGORIES.map((c) => [c, lhr.categories[c] ? lhr.categories[c].score : null])),
      refs: Object.fromEntries(CATEGORIES.map((c) => [c, (lhr.categories[c]?.auditRefs || []).filter((r) => r.weight > 0).map((r) => r.id)])),
      audits,
      weights: Object.fromEntries(CATEGORIES.map((c) => [c, Object.fromEntries((lhr.categories[c]?.auditRefs || []).filter((r) => r.weight > 0).map((r) => [r.id, r.weight]))])),
      performance_runs: runs,
      console: (lhr.audits['errors-in-console']?.details?.items || []).map((i) => String(i.description || '').slice(0, 300)),
      console_items: (lhr.audits['errors-in-console']?.details?.items || []).slice(0, 50).map((i) => ({
        text: String(i.description || '').slice(0, 300), source: i.source || '', url: String(i.sourceLocation?.url || '').slice(0, 300) })),
      runtime_error: lhr.runtimeError ? `${lhr.runtimeError.code}: ${lhr.runtimeError.message}` : null,
      warnings: lhr.runWarnings || [], seconds: (Date.now() - started) / 1000,
    };
  } catch (err) {
    return { error: String(err && err.message ? err.message : err).slice(0, 500), version: k.version };
  }
}

// Performance as the median of up to RUNS runs: the first (all three categories) and
// performance-only runs after it until ``median`` settles it, while the job's limit leaves
// room for two more runs as long as the last (one that runs late is dropped, unasked). The median run's performance score and its
// audits replace the first run's in ``lhr`` and ``audits``. Returns every run's score (0-100).
async function performance(job, folder, k, lhr, audits, started) {
  const score = (l) => (l.categories.performance && l.categories.performance.score !== null
    ? Math.round(100 * l.categories.performance.score) : null);
  const scores = [score(lhr)];
  if (scores[0] === null || lhr.runtimeError) return scores;
  const found = [lhr];
  let last = Date.now() - started;
  while (median(scores) === null) {
    const left = job.limit_ms ? job.limit_ms - (Date.now() - started) : null;
    if (left !== null && left < 2 * last) break;
    const began = Date.now();
    const again = await once(job, folder, k, k.performance, left - last / 2, false);
    if (again.late !== undefined || again.result.lhr.runtimeError || score(again.result.lhr) === null) break;
    found.push(again.result.lhr);
    scores.push(score(again.result.lhr));
    last = Date.now() - began;
  }
  const chosen = found[median(scores) ?? medianOf(scores)];
  if (chosen !== lhr) {
    lhr.categories.performance.score = chosen.categories.performance.score;
    for (const ref of chosen.categories.performance.auditRefs) {
      const a = chosen.audits[ref.id];
      if (a) audits[ref.id] = { score: a.score, value: a.numericValue ?? null, title: a.title, mode: a.scoreDisplayMode };
    }
  }
  return scores;
}

// The index of the run whose performance score is the median, once it is known: two runs
// with the same score settle it (it is the median whatever a third gives), and so do
// RUNS runs; null: one more run is needed. Exported for tests/js.
export function median(scores, most = RUNS) {
  for (let i = 0; i < scores.length; i++) {
    for (let j = i + 1; j < scores.length; j++) if (scores[i] === scores[j]) return i;
  }
  return scores.length >= most ? medianOf(scores) : null;
}

function medianOf(scores) {
  const order = scores.map((s, i) => [s, i]).sort((a, b) => a[0] - b[0]);
  return order[Math.floor((order.length - 1) / 2)][1];
}
