// Whether anything can change the page while nobody acts, for every script of ours that
// would otherwise wait to see: the snapshot's idle window (stages/exploring/snapshot.mjs)
// and the aim of a pointer action (aim.mjs). Runs in the isolated world; it reads only.
//
// The page is idle when: the document and its images and fonts are loaded, no frame is
// inside, no animation or media plays, and the page's own world (kits/page/init.mjs,
// asked with `nonce`) has no timeout, frame, idle callback or interval pending, no
// request in flight, and never made a worker or event source. Without a nonce, or with no
// answer (the page broke the channel), it is busy.
export function idle(nonce) {
  if (!nonce) return false;
  if (document.readyState !== 'complete' || window.frames.length > 0) return false;
  if (document.fonts && document.fonts.status === 'loading') return false;
  if (Array.from(document.images).some((img) => !img.complete)) return false;
  if (Array.from(document.querySelectorAll('video, audio')).some((m) => !m.paused)) return false;
  if (document.getAnimations && document.getAnimations().some((a) => a.playState === 'running' || a.pending)) return false;
  let answer = 'busy';
  const hear = (event) => { answer = String(event.detail); };
  window.addEventListener('iwc-idle-is-' + nonce, hear, true);
  try { window.dispatchEvent(new CustomEvent('iwc-idle-' + nonce)); }
  finally { window.removeEventListener('iwc-idle-is-' + nonce, hear, true); }
  return answer === 'quiet';
}
