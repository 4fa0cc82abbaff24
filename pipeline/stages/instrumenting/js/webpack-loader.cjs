/*
 * A webpack loader that puts Istanbul counters into one of the app's own modules before
 * the framework's compiler sees it (Next.js: added as an enforce-"pre" rule for the
 * browser compilation only, see next-config.mjs). Other files pass through unchanged.
 */
'use strict';

const instrumenting = require('./instrumenting.cjs');
const recording = require('./recording.cjs');

const root = recording.appRoot();

// next/font's loaders must be called as `const x = Inter({...})` at the module's top:
// Next.js refuses a call wrapped in a counter, so a file that calls one (a root layout)
// is left as written
const NEXT_FONT = /\bfrom\s*["']next\/font\//;

module.exports = function iwcIstanbulLoader(source, inputMap) {
    if (NEXT_FONT.test(source)) {
        const key = instrumenting.keyOf(root, this.resourcePath);
        if (key) {
            recording.skip(key, "it calls a next/font loader, which Next.js compiles only as written");
        }
        this.callback(null, source, inputMap);
        return;
    }
    let result;
    try {
        result = instrumenting.instrument(root, this.resourcePath, source);
    } catch (error) {
        this.callback(error);
        return;
    }
    if (result === null) {
        this.callback(null, source, inputMap);
        return;
    }
    this.callback(null, result.code, result.map || undefined);
};
