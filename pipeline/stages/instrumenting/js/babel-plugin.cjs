/*
 * A Babel plugin that puts Istanbul counters into the app's own files (Create React
 * App's webpack build, and Next.js when it builds with Babel).
 *
 * It is babel-plugin-istanbul's core — istanbul-lib-instrument's programVisitor on the
 * untransformed program, so locations are lines of the original file — with two
 * differences the pipeline needs: the coverage key is the path relative to the app's
 * root ("src/App.js"), not an absolute path of a temporary build folder, and each
 * file's initial coverage and source are recorded (recording.cjs). Files outside the
 * root, dependencies and dot-folders are left alone. It must not transform anything
 * else.
 */
'use strict';

const path = require('path');
const recording = require('./recording.cjs');

const { programVisitor } = recording.tool('istanbul-lib-instrument');

module.exports = function iwcBabelIstanbul(api) {
    const t = api.types;
    const root = recording.appRoot();
    return {
        name: 'iwc-istanbul',
        visitor: {
            Program: {
                enter(programPath) {
                    this.iwc = null;
                    const file = this.file.opts.filename;
                    const key = file ? recording.ownKey(root, path.resolve(file)) : null;
                    if (key === null) {
                        return;
                    }
                    this.iwc = {
                        key,
                        visitor: programVisitor(t, key, {
                            coverageVariable: '__coverage__',
                            coverageGlobalScope: 'globalThis',
                            coverageGlobalScopeFunc: false,
                        }),
                    };
                    this.iwc.visitor.enter(programPath);
                    programPath.scope.crawl();
                },
                exit(programPath) {
                    if (!this.iwc) {
                        return;
                    }
                    const result = this.iwc.visitor.exit(programPath);
                    recording.record(this.iwc.key, result.fileCoverage, this.file.code);
                },
            },
        },
    };
};
