/*
 * A webpack loader that puts Istanbul counters into one of the app's own modules before
 * the framework's compiler sees it (Next.js: added as an enforce-"pre" rule for the
 * browser compilation only, see next-config.mjs). Other files pass through unchanged.
 */
'use strict';

const instrumenting = require('./instrumenting.cjs');
const recording = require('./recording.cjs');

const root = recording.appRoot();

module.exports = function iwcIstanbulLoader(source, inputMap) {
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
