// The quality stage's Node side, kept running by kits/processes.Service for one worker:
// one JSON job per stdin line, one JSON answer per stdout line, in order.
//
// job:    {"kind": "static" | "lighthouse" | "firefox" | "states" | "phone" | "desktop" | "warm", "tools": "<node_modules>", ...}
// answer: the kind's answer (static.mjs, lighthouse.mjs, firefox.mjs, render.mjs), or {"error"}
// together: {"kind": "together", "jobs": [job + "limit_ms"]} runs its jobs (one of each kind) side by side
//   → {"answers": [answer], "seconds": [s], "overran": bool}; a job past its limit_ms
//   is answered {"error"} and the answer says "overran" (the caller then stops this
//   server: what overran may still be running).
//
// It keeps what is slow to start — the linters and dictionaries, Lighthouse's Chromium,
// Firefox — between jobs, and exits (closing both browsers) when stdin closes, so it
// never outlives the Python process that started it. Nothing here scores anything.
import readline from 'readline';
import * as chromium from './chromium.mjs';
import * as firefox from './firefox.mjs';
import * as lighthouse from './lighthouse.mjs';
import * as render from './render.mjs';
import * as staticTools from './static.mjs';

// stdout is the protocol: whatever a library prints goes to stderr instead
console.log = console.info = console.warn = console.debug = console.error;

// Start what the jobs of an app will need while the app is still being explored.
async function warm(job, folder) {
  const started = Date.now();
  const parts = [staticTools.warm(folder)];
  if (job.chromium) parts.push(lighthouse.warm(job, folder));
  if (job.firefox) parts.push(firefox.warm(job, folder));
  const settled = await Promise.allSettled(parts);
  return { seconds: (Date.now() - started) / 1000,
    failed: settled.filter((s) => s.status === 'rejected').map((s) => String(s.reason).slice(0, 200)) };
}

// Jobs side by side: the browsers work while the static tools run here (a job that
// does not stop in time is answered as failed; the caller stops the server).
async function together(job) {
  let overran = false;
  const one = async (sub) => {
    const started = Date.now();
    let timer = null;
    const limit = new Promise((resolve) => {
      timer = setTimeout(() => { overran = true; resolve({ error: `did not answer within ${sub.limit_ms / 1000} s` }); },
        sub.limit_ms || 60000);
    });
    try {
      const out = await Promise.race([perform(sub), limit]);
      return [out, (Date.now() - started) / 1000];
    } finally {
      clearTimeout(timer);
    }
  };
  const done = await Promise.all((job.jobs || []).map(one));
  return { answers: done.map((d) => d[0]), seconds: done.map((d) => d[1]), overran };
}

const KINDS = { static: staticTools.run, lighthouse: lighthouse.run, firefox: firefox.run,
  states: render.states, phone: render.phone, desktop: render.desktop, warm, together };

async function perform(job) {
  try {
    const kind = KINDS[job.kind];
    return kind ? await kind(job, job.tools) : { error: `unknown job kind ${job.kind}` };
  } catch (err) {
    return { error: String(err && err.message ? err.message : err).slice(0, 500) };
  }
}
const lines = readline.createInterface({ input: process.stdin, terminal: false });
let queue = Promise.resolve();

async function answer(line) {
  let out;
  try {
    out = await perform(JSON.parse(line));
  } catch (err) {
    out = { error: String(err && err.message ? err.message : err).slice(0, 500) };
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}

lines.on('line', (line) => { if (line.trim()) queue = queue.then(() => answer(line)); });
lines.on('close', () => {
  queue.then(async () => {
    await Promise.allSettled([chromium.close(), firefox.close()]);
    process.exit(0);
  });
});
// Browsers and Lighthouse leave stray rejections behind; they must not end the server.
process.on('unhandledRejection', () => {});
