// Why the page shows nothing at all — no text, no media, no control, no painted box in
// its body — or null when it shows something (kits/inspecting.py). An element counts
// when it is visible (visible.mjs) and covers at least 16 px². It reads only.
import { visibility } from './visible.mjs';

const MEDIA = 'img,canvas,svg,video,iframe,input,button,select,textarea,object,embed,picture,meter,progress';
const SCANNED = 3000;  // elements looked at for a painted box

const SIDES = ['Top', 'Right', 'Bottom', 'Left'];

// Something is drawn on this box: a background unlike the body's, an image, a border on
// any side (a board drawn with right and bottom borders only) or a shadow.
export const painted = (st, bodyBackground) =>
  (st.backgroundColor !== 'rgba(0, 0, 0, 0)' && st.backgroundColor !== bodyBackground)
  || st.backgroundImage !== 'none'
  || SIDES.some((side) => parseFloat(st[`border${side}Width`]) > 0 && st[`border${side}Style`] !== 'none')
  || st.boxShadow !== 'none';

// The elements of `root` and of every open shadow root below it (a web component's
// rendered content), document order within each tree, at most `max`.
export function deepElements(root, max) {
  const found = [];
  const queue = [root];
  while (queue.length && found.length < max) {
    for (const el of queue.shift().querySelectorAll('*')) {
      if (found.length >= max) break;
      found.push(el);
      if (el.shadowRoot) queue.push(el.shadowRoot);
    }
  }
  return found;
}

export default function showsNothing() {
  const body = document.body;
  if (!body) return 'the document has no body';
  if ((body.innerText || '').trim()) return null;
  const all = deepElements(body, SCANNED);
  const hosts = all.filter((el) => el.shadowRoot);
  if (hosts.some((host) => [...host.shadowRoot.children].some((el) => (el.innerText || '').trim()))) return null;
  const seen = visibility(window);
  const bodyStyle = getComputedStyle(body);
  const shown = (el) => {
    const r = el.getBoundingClientRect();
    return r.width * r.height >= 16 && seen.visible(el);
  };
  for (const el of body.querySelectorAll(MEDIA)) {
    if (shown(el)) return null;
  }
  for (const el of all) {
    if (el.getRootNode() !== document && el.matches(MEDIA) && shown(el)) return null;
  }
  for (const el of all) {
    if (shown(el) && painted(getComputedStyle(el), bodyStyle.backgroundColor)) return null;
  }
  if (!body.children.length) return 'its body is empty';
  return 'its body has no visible text, image, canvas, control or painted box';
}
