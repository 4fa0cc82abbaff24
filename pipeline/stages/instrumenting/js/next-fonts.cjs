// next/font/google without Google Fonts: the build runs with no network, and Next.js
// fetches each font's stylesheet and files while it builds. Next.js reads mocked
// stylesheets from the module NEXT_FONT_GOOGLE_MOCKED_RESPONSES names (a map from the
// stylesheet's URL to its CSS) and, while mocked, reads a font file whose URL is an
// absolute path from the disk. This module answers every URL: one @font-face per family
// and weight asked for, whose file is a local font of the machine's (Liberation or
// DejaVu, what Debian's Chromium ships with), so the page is built and shows a real
// font in place of the one it asked for. Each stylesheet it stood in for is appended to
// .iwc-next-fonts.log in the app's folder; the build stage reports them.
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

function stylesheet(url) {
  const file = LOCAL_FONTS.find((f) => fs.existsSync(f));
  const src = file ? `url(${file}) format('truetype')` : "local('sans-serif')";
  try { fs.appendFileSync(LOG, `${url}\t${file || 'none'}\n`); } catch { /* the report loses a line, the build goes on */ }
  return families(url).map(({ name, weights }) => weights.map((weight) => `@font-face {
  font-family: '${name.replace(/'/g, '')}';
  font-style: normal;
  font-weight: ${weight.replace('..', ' ')};
  font-display: swap;
  src: ${src};
}`).join('\n')).join('\n');
}

module.exports = new Proxy({}, {
  get: (_, url) => (typeof url === 'string' && url.startsWith('https://') ? stylesheet(url) : undefined),
});
