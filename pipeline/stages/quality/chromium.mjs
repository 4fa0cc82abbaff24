// The server's one Chromium (Debian's), shared by Lighthouse and the page renders, and the
// sandbox's network rules for a page in it.
//
// Launched once, from the browser kit's launcher (job.chrome: a network namespace where
// the machine allows one) with its flags (job.chrome_args: every connection through the
// network guard, which the Python side points at the current app's server; no name
// resolution; no UDP outside the proxy), over a pipe, as Playwright does. Each job opens
// its own browser context and closes it. ``hermetic(page, job)`` follows the sandbox's
// request rule (kits/mirror/rule.mjs): the app's origin goes through, the CDN files the
// exploration used are answered from the local mirror copies (job.cdn: {url: {file,
// type}}), every other request is refused before it is sent; what page routing never
// sees meets the guard.
import fs from 'fs';
import path from 'path';
import { pathToFileURL } from 'url';
import * as rule from '../../kits/mirror/rule.mjs';

let puppeteer = null;
let browser = null;
// Every browser context a job opens: downloads refused (Browser.setDownloadBehavior).
export const CONTEXT = Object.freeze({ downloadBehavior: Object.freeze({ policy: 'deny' }) });

export async function load(folder) {
  if (!puppeteer) {
    puppeteer = (await import(pathToFileURL(path.join(folder, 'puppeteer-core/lib/esm/puppeteer/puppeteer-core.js')).href)).default;
  }
  return puppeteer;
}

export async function chromium(job, folder) {
  if (browser && browser.connected) return browser;
  const p = await load(folder);
  browser = await p.launch({ executablePath: job.chrome, headless: true, defaultViewport: null, pipe: true,
    args: job.chrome_args, downloadBehavior: CONTEXT.downloadBehavior });
  return browser;
}

// Route every request of ``page`` (puppeteer's interception): ``serve(url)`` may answer
// a document itself (a stored snapshot); the app's origin goes through; mirrored CDN
// files are answered; the rest is refused. Returns the log: [[url, status|null, failure|null]].
export async function hermetic(page, job, serve = () => null) {
  const log = [];
  const cdn = job.cdn || {};
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    const url = request.url();
    const own = serve(url, request);
    if (own) { request.respond(own); return; }
    const decision = rule.decide(url, job.origin);
    if (decision === 'pass') { request.continue(); return; }
    const hit = decision === 'mirror' && cdn[url];
    if (hit) {
      request.respond({ status: 200, contentType: hit.type, headers: { 'access-control-allow-origin': '*' }, body: fs.readFileSync(hit.file) });
      if (log.length < 1000) log.push([url.slice(0, 300), 200, null]);
      return;
    }
    if (log.length < 1000) log.push([url.slice(0, 300), null, 'blocked by the sandbox']);
    request.abort('blockedbyclient');
  });
  page.on('response', (r) => { if (log.length < 1000 && r.url().startsWith(job.origin + '/')) log.push([r.url().slice(0, 300), r.status(), null]); });
  page.on('requestfailed', (r) => {
    const failure = (r.failure() && r.failure().errorText) || 'failed';
    if (log.length < 1000 && r.url().startsWith(job.origin + '/')) log.push([r.url().slice(0, 300), null, failure]);
  });
  return log;
}

// Whether ``page`` hung (its main thread busy for good) rather than our browser: the page
// does not answer a trivial evaluation within HUNG_MS while a fresh page in a context of
// its own does. Returns the reason, or null (it answered, or the browser itself did not).
export const HUNG_MS = 2000;
const answers = async (page) => {
  let timer = null;
  const late = new Promise((resolve) => { timer = setTimeout(() => resolve(false), HUNG_MS); });
  try {
    return await Promise.race([page.evaluate('1').then(() => true, () => true), late]);
  } finally {
    clearTimeout(timer);
  }
};

export async function hung(page, browser) {
  if (!page || await answers(page)) return null;
  let control = null;
  try {
    control = await browser.createBrowserContext(CONTEXT);
    if (!(await answers(await control.newPage()))) return null;  // the browser is stuck: ours, not the page's
  } catch {
    return null;
  } finally {
    if (control) control.close().catch(() => {});
  }
  return `the page's main thread did not answer for ${HUNG_MS / 1000} s (a fresh page in the same browser did)`;
}

export async function close() {
  if (browser) await browser.close().catch(() => {});
  browser = null;
}
