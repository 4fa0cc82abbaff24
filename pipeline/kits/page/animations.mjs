// Under the page's clock (kits/pageclock.py) the document's animation timeline is frozen
// (Animation.setPlaybackRate 0: kits/devtools.py, freeze_animations), so CSS transitions, CSS animations and
// the page's own Web Animations would never move; this moves each running one by the
// page time the clock just let pass. They then move with the page's timers and frames,
// by the same amounts in every run, instead of in real time between the explorer's
// looks (a hover's 150 ms transition half or wholly done at the next look depending on
// the machine's load). An animation moved past its end finishes. Its end and iteration
// events are sent at the browser's next rendering frame, so when one crossed such a
// boundary this waits for that frame (the isolated world's own requestAnimationFrame,
// not the clock's; at most FRAME_WAIT_MS): the next look sees what their handlers did.
// Runs in the observer's isolated world, on the main frame's document and its same-origin frames'.
const FRAME_WAIT_MS = 200;

export default async function animations({ms}) {
  if (!document.getAnimations) return 0;
  let moved = 0, crossed = false;
  for (const a of documents(document).flatMap((d) => d.getAnimations())) {
    // (a scroll-driven animation follows its scroller, not time: left as it is)
    if (a.playState !== 'running' || String(a.timeline) !== '[object DocumentTimeline]') continue;
    try {
      const before = iteration(a);
      a.currentTime = (a.currentTime || 0) + ms * a.playbackRate;
      crossed = crossed || a.playState === 'finished' || iteration(a) !== before;
      moved += 1;
    } catch { /* an animation that refuses a time of ours keeps its own */ }
  }
  if (crossed) {
    await new Promise((done) => { requestAnimationFrame(() => done()); setTimeout(done, FRAME_WAIT_MS); });
  }
  return moved;
}

// The document and those of its same-origin frames, which share its renderer and so its
// frozen timeline (a frame from another origin runs elsewhere, in real time as before).
function documents(doc) {
  const found = [doc];
  for (const frame of doc.querySelectorAll('iframe, frame')) {
    try {
      if (frame.contentDocument && frame.contentDocument.getAnimations) found.push(...documents(frame.contentDocument));
    } catch { /* another origin */ }
  }
  return found;
}

function iteration(a) {
  return a.effect && a.effect.getComputedTiming ? a.effect.getComputedTiming().currentIteration : null;
}
