// The sandbox's request rule for the Node side (the quality stage's Chromium and
// Firefox: stages/quality/chromium.mjs, firefox.mjs). The rule is kits/mirror/rule.py;
// its data reaches Node as rule.json (written by hack/gen-sandbox-rule), and decide()
// is rule.py's procedure, step for step, so both give the same answer for any URL
// (tests/unit/sandbox holds all four consumers to one table).
//
// decide(url, appOrigin, websocket) -> "pass" | "mirror" | "refuse"
import fs from 'node:fs';

export const RULE = JSON.parse(fs.readFileSync(new URL('./rule.json', import.meta.url), 'utf8'));

const SPLIT = /^([A-Za-z][A-Za-z0-9+.-]*):(?:\/\/([^/?#]*))?/;
const PORT = /:[0-9]*$/;

export function origin(url) {
  const found = SPLIT.exec(url);
  if (!found) return '';
  let scheme = found[1].toLowerCase();
  scheme = RULE.websocket_schemes[scheme] || scheme;
  return found[2] !== undefined ? `${scheme}://${found[2].toLowerCase()}` : `${scheme}:`;
}

export function host(url) {
  const found = SPLIT.exec(url);
  let netloc = (found && found[2]) || '';
  netloc = netloc.slice(netloc.lastIndexOf('@') + 1);
  if (!netloc.endsWith(']')) netloc = netloc.replace(PORT, '');
  return netloc.toLowerCase();
}

export function decide(url, appOrigin, websocket = false) {
  const found = SPLIT.exec(url);
  const scheme = found ? found[1].toLowerCase() : '';
  if (RULE.pass_schemes.includes(scheme) || origin(url) === origin(appOrigin)) return 'pass';
  if (websocket) return 'refuse';
  if (RULE.cdn_schemes.includes(scheme) && RULE.cdn_hosts.includes(host(url))) return 'mirror';
  return 'refuse';
}
