// The start page in a second engine: Debian's Firefox ESR driven over WebDriver BiDi by
// puppeteer-core (a job of server.mjs).
//
// job:    {"firefox", "url", "origin", "cdn": {"<url>": {"file", "type"}}, "probe": "<the probe, an expression>",
//          "width", "height", "settle_ms", "timeout_ms"}
// answer: {"version", "stage": launch|load|probe|done (how far it got), "status", "errors": [text],
//          "console": [text], "blocked": [url], "probe": {...}, "error", "seconds"}
//
// The same network rules as in Chromium (kits/mirror/rule.mjs): the app's origin goes
// through, the CDN files the exploration used come from the local mirror copies,
// everything else is refused;
// and every connection Firefox makes, loopback included, goes to the network guard
// (job.guard_port), which lets through the current app's server only. WebRTC and
// speculative connections are off. (No network namespace: WebDriver BiDi talks to
// Firefox over a loopback port.) It runs the page's own scripts, as a visitor's
// Firefox would, and only reads the page afterwards.
// One Firefox serves every job of the server; each job gets its own browser context.
import fs from 'fs';
import os from 'os';
import path from 'path';
import { pathToFileURL } from 'url';
import * as rule from '../../kits/mirror/rule.mjs';

let puppeteer = null;
let browser = null;
// Downloads: refused per context (WebDriver BiDi's browser.setDownloadBehavior), and the
// folder one would go to is in the session's folder (the server's TMPDIR), not ~/Downloads.
const DENY = Object.freeze({ downloadBehavior: Object.freeze({ policy: 'deny' }) });

async function firefox(job, folder) {
  if (!puppeteer) {
    puppeteer = (await import(pathToFileURL(path.join(folder, 'puppeteer-core/lib/esm/puppeteer/puppeteer-core.js')).href)).default;
  }
  if (browser && browser.connected) return browser;
  browser = await puppeteer.launch({
    browser: 'firefox', executablePath: job.firefox, headless: true,
    extraPrefsFirefox: {
      'network.proxy.type': 1, 'network.proxy.http': '127.0.0.1', 'network.proxy.http_port': job.guard_port,
      'network.proxy.ssl': '127.0.0.1', 'network.proxy.ssl_port': job.guard_port, 'network.proxy.share_proxy_settings': true,
      'network.proxy.no_proxies_on': '', 'network.proxy.allow_hijacking_localhost': true,
      'network.proxy.socks_remote_dns': true, 'network.dns.disablePrefetch': true, 'network.prefetch-next': false,
      'network.predictor.enabled': false, 'network.http.speculative-parallel-limit': 0,
      'media.peerconnection.enabled': false, 'browser.cache.disk.enable': false, 'app.update.enabled': false,
      'datareporting.policy.dataSubmissionEnabled': false,
      // Firefox's own services would only meet the guard: not the app's doing
      'network.captive-portal-service.enabled': false,
      'network.connectivity-service.enabled': false, 'browser.safebrowsing.malware.enabled': false,
      'browser.safebrowsing.phishing.enabled': false, 'extensions.update.enabled': false,
      // one content process, none prelaunched: a page at a time is all a job needs
      'fission.autostart': false, 'dom.ipc.processCount': 1, 'dom.ipc.processCount.webIsolated': 1,
      'dom.ipc.processPrelaunch.enabled': false, 'browser.sessionhistory.max_total_viewers': 0,
      // and no helper processes but the fork server: networking, media decoding and the
      // extensions in the parent, Firefox's own pages in the one content process (689 → 526
      // MiB of RSS idle, the probe's facts on the example the same); the memory cache (the
      // only one: the disk's is off) bounded, as it outlives each job's context
      'network.process.enabled': false, 'media.rdd-process.enabled': false,
      'media.utility-process.enabled': false, 'extensions.webextensions.remote': false,
      'browser.tabs.remote.separatePrivilegedContentProcess': false, 'browser.cache.memory.capacity': 16384,
      'browser.download.folderList': 2, 'browser.download.dir': path.join(os.tmpdir(), 'downloads'),
      'browser.download.useDownloadDir': true, 'browser.download.start_downloads_in_tmp_dir': true,
      'browser.download.always_ask_before_handling_new_types': false, 'browser.download.manager.addToRecentDocs': false,
    },
  });
  return browser;
}

export async function warm(job, folder) {
  await firefox(job, folder);
}

// One request of the page, by the sandbox's request rule (kits/mirror/rule.mjs); a
// refused one is listed in `blocked` (at most 50).
export function route(request, job, blocked) {
  const url = request.url();
  const decision = rule.decide(url, job.origin);
  const hit = decision === 'mirror' && (job.cdn || {})[url];
  if (decision === 'pass') request.continue();
  else if (hit) request.respond({ status: 200, contentType: hit.type, headers: { 'access-control-allow-origin': '*' }, body: fs.readFileSync(hit.file) });
  else { if (blocked.length < 50) blocked.push(url.slice(0, 300)); request.abort('blockedbyclient'); }
}

export async function run(job, folder) {
  const started = Date.now();
  const out = { errors: [], console: [], blocked: [], stage: 'launch' };
  let context = null;
  let timer = null;
  const overrun = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Firefox took longer than ${job.timeout_ms} ms`)), job.timeout_ms || 60000);
  });
  try {
    await Promise.race([(async () => {
      const b = await firefox(job, folder);
      out.version = await b.version();
      out.stage = 'load';
      context = await b.createBrowserContext(DENY);
      const page = await context.newPage();
      if (job.quiet) await page.evaluateOnNewDocument(job.quiet);  // the page's console bounded (kits/page/quiet.mjs)
      await page.setViewport({ width: job.width || 1280, height: job.height || 800 });
      page.on('pageerror', (e) => out.errors.length < 50 && out.errors.push(String(e && e.message ? e.message : e).slice(0, 300)));
      page.on('console', (m) => m.type() === 'error' && out.console.length < 50 && out.console.push(m.text().slice(0, 300)));
      await page.setRequestInterception(true);
      page.on('request', (request) => route(request, job, out.blocked));
      const response = await page.goto(job.url, { waitUntil: 'load', timeout: job.timeout_ms || 60000 });
      out.status = response ? response.status() : null;
      await new Promise((r) => setTimeout(r, job.settle_ms || 500));
      out.stage = 'probe';
      out.probe = await page.evaluate(job.probe);
      out.stage = 'done';
    })(), overrun]);
  } catch (err) {
    out.error = String(err && err.message ? err.message : err).slice(0, 500);
    if (out.stage === 'launch') await close();  // a half-started Firefox is no use to the next job
  } finally {
    clearTimeout(timer);
    if (context) await context.close().catch(() => {});
    out.seconds = (Date.now() - started) / 1000;
  }
  return out;
}

export async function close() {
  if (browser) await browser.close().catch(() => {});
  browser = null;
}
