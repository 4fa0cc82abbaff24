// The quality stage's Node side, kept running by kits/processes.Service for one worker:
// one JSON job per stdin line, one JSON answer per stdout line, in order.
//
// job:    {"kind": "static" | "lighthouse" | "firefox" | "states" | "phone" | "warm", "tools": "<node_modules>", ...}
// answer: the kind's answer (static.mjs, lighthouse.mjs, firefox.mjs, render.mjs), or {"error"}
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

const KINDS = { static: staticTools.run, lighthouse: lighthouse.run, firefox: firefox.run,
  states: render.states, phone: render.phone, warm };
const lines = readline.createInterface({ input: process.stdin, terminal: false });
let queue = Promise.resolve();

async function answer(line) {
  let out;
  try {
    const job = JSON.parse(line);
    const kind = KINDS[job.kind];
    out = kind ? await kind(job, job.tools) : { error: `unknown job kind ${job.kind}` };
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
