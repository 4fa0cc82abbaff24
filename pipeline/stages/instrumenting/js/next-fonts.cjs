// next/font/google without Google Fonts: the build runs with no network, and Next.js
// fetches each font's stylesheet and files while it builds. Next.js reads mocked
// stylesheets from the module NEXT_FONT_GOOGLE_MOCKED_RESPONSES names (a map from the
// stylesheet's URL to its CSS) and, while mocked, reads a font file whose URL is an
// absolute path from the disk. This module answers every URL: one @font-face per family
// and weight asked for. Its file is the family's own, from its @fontsource package
// (Google's files, on npm), when fonts.py fetched it before the build (the manifest
// $IWC_NEXT_FONTS names: family → "weight-style" → woff2 path); otherwise a local font
// of the machine's (Liberation or DejaVu, what Debian's Chromium ships with), so the page
// is built and shows a real font in place of the one it asked for. Each family it
// answered is appended to .iwc-next-fonts.log in the app's folder (URL, family, the file
// or package used); the build stage reports them.
const fs = require('fs');
const path = require('path');

const LOCAL_FONTS = [
  '/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf',
  '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf',
];
const LOG = path.join(process.cwd(), '.iwc-next-fonts.log');

function families(url) {
  const asked = new URL(url).searchParams.getAll('family');
  return asked.map((spec) => {
    const [name, axes = ''] = spec.split(':');
    // "wght@400;700", "ital,wght@0,400;1,700", "wght@100..900": the weights asked for
    const values = (axes.split('@')[1] || '400').split(';').map((tuple) => tuple.split(',').pop());
    return { name: name.replace(/\+/g, ' '), weights: [...new Set(values)] };
  });
}

let manifest = null;
function fetched() {
  if (manifest === null) {
    try { manifest = JSON.parse(fs.readFileSync(process.env.IWC_NEXT_FONTS || '', 'utf8')); } catch { manifest = {}; }
  }
  return manifest;
}

// The weights of ``files`` (weight-style → path) a request for ``weight`` ("400",
// "100 900" for a variable range) is answered with, in one style.
function chosen(files, weight, style) {
  const have = Object.keys(files).filter((k) => k.endsWith(`-${style}`)).map((k) => Number(k.split('-')[0]));
  const [low, high = low] = weight.split(' ').map(Number);
  const inside = have.filter((w) => w >= low && w <= high);
  if (inside.length) return inside;
  const near = have.sort((a, b) => Math.abs(a - low) - Math.abs(b - low))[0];
  return near === undefined ? [] : [near];
}

function face(name, weight, src) {
  return `@font-face {
  font-family: '${name.replace(/'/g, '')}';
  font-style: normal;
  font-weight: ${weight};
  font-display: swap;
  src: ${src};
}`;
}

function stylesheet(url) {
  const local = LOCAL_FONTS.find((f) => fs.existsSync(f));
  const stand = local ? `url(${local}) format('truetype')` : "local('sans-serif')";
  return families(url).map(({ name, weights }) => {
    const own = (fetched()[name] || {}).files || {};
    const used = Object.keys(own).length ? fetched()[name].package : (local || 'none');
    try { fs.appendFileSync(LOG, `${url}\t${name}\t${used}\n`); } catch { /* the report loses a line, the build goes on */ }
    return weights.map((w) => {
      const weight = w.replace('..', ' ');
      const picks = Object.keys(own).length ? chosen(own, weight, 'normal') : [];
      if (!picks.length) return face(name, weight, stand);
      return picks.map((p) => face(name, p, `url(${own[`${p}-normal`]}) format('woff2')`)).join('\n');
    }).join('\n');
  }).join('\n');
}

module.exports = new Proxy({}, {
  get: (_, url) => (typeof url === 'string' && url.startsWith('https://') ? stylesheet(url) : undefined),
});
