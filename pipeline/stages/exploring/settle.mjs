// After an action, until the page is quiet: a frame passed with no DOM mutation in it and nothing
// pending that could change it (kits/page/idle.mjs: no timer, frame or request pending, no
// animation or media running), or until `capMs` have passed since the call. Runs in the
// isolated world (its frames and timers are the browser's, whatever the page replaced);
// it reads only. Answers {ms, quiet}: how long it waited, and whether the page was quiet
// (false: the cap ended the wait).
import { idle } from '../../kits/page/idle.mjs';

export default async function settle({capMs, nonce}) {
  const start = performance.now();
  let mutated = false;
  const seen = new MutationObserver(() => { mutated = true; });
  seen.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  try {
    for (;;) {
      const left = capMs - (performance.now() - start);
      if (left <= 0) return {ms: Math.round(performance.now() - start), quiet: false};
      await frameOr(left);
      if (!mutated && idle(nonce)) return {ms: Math.round(performance.now() - start), quiet: true};
      mutated = false;
    }
  } finally {
    seen.disconnect();
  }
}

// The next animation frame, or `ms` if that comes first (a page drawing a frame a
// second must not hold the step past its cap).
function frameOr(ms) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    requestAnimationFrame(() => { clearTimeout(timer); resolve(); });
  });
}
