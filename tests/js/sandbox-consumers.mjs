// What the quality stage's two browsers do with each request of a table (for
// tests/unit/sandbox): stdin {appOrigin, rows: [{url, websocket}]}, stdout
// {chromium: [action], firefox: [action], decide: [action]}, an action being "pass",
// "mirror" or "refuse". The handlers are the real ones (chromium.mjs's hermetic,
// firefox.mjs's route) on stand-ins for puppeteer's page and request; every CDN URL of
// the table is in job.cdn, as if the exploration had mirrored it.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { hermetic } from '../../pipeline/stages/quality/chromium.mjs';
import { route } from '../../pipeline/stages/quality/firefox.mjs';
import { decide } from '../../pipeline/kits/mirror/rule.mjs';

const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const here = fileURLToPath(import.meta.url);
const job = { origin: input.appOrigin, cdn: Object.fromEntries(input.rows.map((r) => [r.url, { file: here, type: 'text/javascript' }])) };

const request = (url) => {
  const seen = { action: null };
  return { seen, url: () => url, resourceType: () => 'script', continue: () => { seen.action = 'pass'; },
    respond: () => { seen.action = 'mirror'; }, abort: () => { seen.action = 'refuse'; } };
};

const listeners = {};
const page = { setRequestInterception: async () => {}, on: (event, fn) => { listeners[event] = fn; } };
await hermetic(page, job);

const out = { chromium: [], firefox: [], decide: [] };
for (const row of input.rows) {
  out.decide.push(decide(row.url, input.appOrigin, row.websocket));
  if (row.websocket) {  // puppeteer's interception never sees a WebSocket: the guard does
    out.chromium.push(null); out.firefox.push(null); continue;
  }
  const forChromium = request(row.url);
  listeners.request(forChromium);
  out.chromium.push(forChromium.seen.action);
  const forFirefox = request(row.url);
  route(forFirefox, job, []);
  out.firefox.push(forFirefox.seen.action);
}
process.stdout.write(JSON.stringify(out));
