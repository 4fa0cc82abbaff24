// Pages for the probe in the server's Chromium (jobs of server.mjs).
//
// states: {"chrome", "origin", "cdn", "probe", "states": [{"id", "url", "html"}], "width", "height",
//          "timeout_ms"} → {"states": {id: probe facts}, "problems": {id: text}}
//   Each explored state's stored DOM snapshot is shown again at its own address with
//   JavaScript off (its stylesheets, fonts and images load through the sandbox's rules),
//   then probed. Nothing the app does at runtime runs again.
// phone:  {"chrome", "origin", "cdn", "probe", "url", "width", "height", "settle_ms", "timeout_ms"}
//   → {"probe", "requests": [[url, status|null, failure|null]], "errors": [text], "status"}
//   The start page loaded live on a 375×667 touch screen (the viewport meta tag applies);
//   the browser's own /favicon.ico request is not one of the page's (unless it links it).
//   A load that timed out says "hung" (chromium.hung) when the page's main thread no
//   longer answers: the page's fault, not the tool's.
// desktop: {"chrome", "origin", "cdn", "probe", "url", "width", "height", "settle_ms", "timeout_ms"}
//   → {"probe", "errors": [text], "status"}
//   The start page loaded live as firefox.mjs loads it (same viewport, same wait after
//   the load event, same probe), the Chromium half of wcb_cross_browser.
import * as shared from './chromium.mjs';

const strip = (url) => url.split('#')[0];

export async function states(job, folder) {
  const out = { states: {}, problems: {} };
  const browser = await shared.chromium(job, folder);
  const context = await browser.createBrowserContext(shared.CONTEXT);
  try {
    for (const state of job.states || []) {
      const page = await context.newPage();
      if (job.quiet) await page.evaluateOnNewDocument(job.quiet);  // the page's console bounded (kits/page/quiet.mjs)
      try {
        await page.setJavaScriptEnabled(false);
        await page.setViewport({ width: job.width || 1280, height: job.height || 800 });
        let served = false;
        await shared.hermetic(page, job, (url, request) => {
          if (served || request.resourceType() !== 'document' || strip(url) !== strip(state.url)) return null;
          served = true;
          return { status: 200, contentType: 'text/html; charset=utf-8', body: state.html };
        });
        await page.goto(state.url, { waitUntil: 'load', timeout: job.timeout_ms || 8000 });
        out.states[state.id] = await page.evaluate(job.probe);
      } catch (err) {
        out.problems[state.id] = String(err && err.message ? err.message : err).slice(0, 300);
      } finally {
        await page.close().catch(() => {});
      }
    }
  } finally {
    await context.close().catch(() => {});
  }
  return out;
}

// The start page loaded live in a fresh context: ``view(page, browser)`` sets its screen,
// ``after(page, log, out)`` reads more once it is probed. Page errors in ``out.errors``.
async function live(job, folder, view, after = async () => {}) {
  const out = { errors: [] };
  const browser = await shared.chromium(job, folder);
  const context = await browser.createBrowserContext(shared.CONTEXT);
  let page = null;
  try {
    page = await context.newPage();
    if (job.quiet) await page.evaluateOnNewDocument(job.quiet);  // the page's console bounded (kits/page/quiet.mjs)
    await view(page, browser);
    page.on('pageerror', (e) => out.errors.length < 50 && out.errors.push(String(e && e.message ? e.message : e).slice(0, 300)));
    const log = await shared.hermetic(page, job);
    const response = await page.goto(job.url, { waitUntil: 'load', timeout: job.timeout_ms || 20000 });
    out.status = response ? response.status() : null;
    await new Promise((r) => setTimeout(r, job.settle_ms || 400));
    out.probe = await page.evaluate(job.probe);
    await after(page, log, out);
  } catch (err) {
    out.error = String(err && err.message ? err.message : err).slice(0, 300);
    if (err && err.name === 'TimeoutError') out.hung = await shared.hung(page, browser);
  } finally {
    await context.close().catch(() => {});
  }
  return out;
}

export async function phone(job, folder) {
  return live(job, folder, async (page, browser) => page.emulate({ userAgent: await browser.userAgent(), viewport: {
    width: job.width || 375, height: job.height || 667, isMobile: true, hasTouch: true, deviceScaleFactor: 2 } }),
  async (page, log, out) => {
    // The browser asks for /favicon.ico by itself, when it gets round to it: not a
    // resource the app requested (whether it was logged depended on how long the page
    // stayed open), unless the page names it in an icon link.
    const icons = await page.$$eval('link[rel~="icon" i]', (links) => links.map((l) => l.href)).catch(() => []);
    out.requests = log.filter(([url]) => !(/^[^?#]*\/\/[^/]+\/favicon\.ico([?#]|$)/.test(url) && !icons.includes(url)));
  });
}

export async function desktop(job, folder) {
  return live(job, folder, (page) => page.setViewport({ width: job.width || 1280, height: job.height || 800 }));
}
