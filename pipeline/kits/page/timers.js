// Under Playwright's clock (Session.virtual_time), an error a timer or animation-frame
// callback throws is caught by the clock and logged as a console error; in a browser
// it is an uncaught page error. This keeps it one: each callback's error is reported
// with reportError(), as the browser would. Runs in the page's main world right after
// the clock is installed; it changes nothing else the timers do.
(() => {
  for (const name of ['setTimeout', 'setInterval', 'requestAnimationFrame']) {
    const clocked = window[name];
    const timer = function (callback, ...rest) {
      if (typeof callback !== 'function') return clocked.call(this, callback, ...rest);
      return clocked.call(this, function (...args) {
        try { return callback.apply(this, args); } catch (error) { self.reportError(error); }
      }, ...rest);
    };
    Object.defineProperty(timer, 'name', { value: name });
    window[name] = timer;
  }
})();
