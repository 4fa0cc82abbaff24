// Lighthouse on one page, in Debian's Chromium, with the sandbox's network rules
// (run by stages/quality/tooling.py).
//
// stdin:  {"tools", "chrome", "url", "cdn": {"<url>": {"file", "type"}}, "timeout_ms"}
// stdout: {"version", "categories": {id: score 0-1 | null}, "refs": {category: [audit ids]},
//          "audits": {id: {score, value, title, mode}}, "console": [text], "runtime_error", "seconds"}
//
// Only the audits that carry weight in the performance, accessibility and
// best-practices categories run (the categories' scores are the same; the
// diagnostics are skipped). Nothing leaves the machine: every host name but the
// loopback app server fails to resolve, and the CDN files the exploration used are
// answered from the local mirror copies named in "cdn" before any lookup happens.
import fs from 'fs';
import path from 'path';
import { pathToFileURL } from 'url';

const job = JSON.parse(fs.readFileSync(0, 'utf8'));
const started = Date.now();
const mod = async (rel) => (await import(pathToFileURL(path.join(job.tools, rel)).href)).default;
const puppeteer = await mod('puppeteer-core/lib/esm/puppeteer/puppeteer-core.js');
const lighthouse = await mod('lighthouse/core/index.js');
const defaults = await mod('lighthouse/core/config/default-config.js');
const version = JSON.parse(fs.readFileSync(path.join(job.tools, 'lighthouse', 'package.json'), 'utf8')).version;

const CATEGORIES = ['performance', 'accessibility', 'best-practices'];
const weighted = CATEGORIES.flatMap((c) => defaults.categories[c].auditRefs.filter((r) => r.weight > 0).map((r) => r.id));
const cdn = job.cdn || {};
const hosts = [...new Set(Object.keys(cdn).map((u) => new URL(u).host))];

let browser;
const watchdog = setTimeout(() => {
  process.stdout.write(JSON.stringify({ error: `Lighthouse took longer than ${job.timeout_ms} ms`, version }));
  process.exit(3);
}, job.timeout_ms || 90000);
try {
  browser = await puppeteer.launch({
    executablePath: job.chrome, headless: true, defaultViewport: null,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost'],
  });
  const page = await browser.newPage();
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
      } catch (err) { /* the page moved on */ }
    });
  }
  const result = await lighthouse(job.url, {
    output: 'json', logLevel: 'error', onlyCategories: CATEGORIES, onlyAudits: weighted,
    disableFullPageScreenshot: true,
  }, undefined, page);
  const lhr = result.lhr;
  const audits = {};
  for (const [id, a] of Object.entries(lhr.audits)) {
    audits[id] = { score: a.score, value: a.numericValue ?? null, title: a.title, mode: a.scoreDisplayMode };
  }
  const console = (lhr.audits['errors-in-console']?.details?.items || []).map((i) => String(i.description || '').slice(0, 300));
  process.stdout.write(JSON.stringify({
    version, categories: Object.fromEntries(CATEGORIES.map((c) => [c, lhr.categories[c] ? lhr.categories[c].score : null])),
    refs: Object.fromEntries(CATEGORIES.map((c) => [c, (lhr.categories[c]?.auditRefs || []).filter((r) => r.weight > 0).map((r) => r.id)])),
    audits, console, runtime_error: lhr.runtimeError ? `${lhr.runtimeError.code}: ${lhr.runtimeError.message}` : null,
    warnings: lhr.runWarnings || [], seconds: (Date.now() - started) / 1000,
  }));
} catch (err) {
  process.stdout.write(JSON.stringify({ error: String(err && err.message ? err.message : err).slice(0, 500), version }));
} finally {
  clearTimeout(watchdog);
  if (browser) await browser.close().catch(() => {});
  process.exit(0);  // Lighthouse's own timers must not keep the process alive
}
