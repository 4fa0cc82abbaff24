/*
 * Istanbul in an Angular CLI build (`ng build`, the esbuild-based application builder
 * of @angular/build, or @angular-devkit/build-angular 17-18), preloaded into the CLI's
 * process with `node --require`. The builder hands every file it compiled to its
 * JavaScriptTransformer before esbuild bundles it; this wraps that class's transformData
 * so that a TypeScript file of the app's own comes back with counters. Angular's compiled
 * code carries an inline source map to the files it came from: the component's .ts and
 * its template (.html, for a templateUrl; an inline template is in the .ts). Each of
 * those files gets its own key, counted on the lines its author wrote
 * (components.instrumentCompiled, once per file, each pass seeing only the code that
 * maps to its file): a template's event handlers (`(click)="add()"`) are functions of
 * the .html key, on the template's lines. Specs and files outside the app are left
 * alone. It must not decide what is served, nor change anything else of the build.
 */
'use strict';

const Module = require('module');
const path = require('path');

const components = require('./components.cjs');
const recording = require('./recording.cjs');

const TRANSFORMER = /(^|[\\/])javascript-transformer(\.js)?$/; // required by its relative path
const OWN_SCRIPT = /\.[cm]?ts$/;
const NOT_COUNTED = /\.(spec|test)\.[cm]?ts$|\.d\.ts$/;

function inlined(code, map) {
    const data = Buffer.from(JSON.stringify(map)).toString('base64');
    return `${code.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '')}\n//# sourceMappingURL=data:application/json;base64,${data}\n`;
}

/* The compiled file with counters for it and each own file its map leads to, or null. */
function counted(root, filename, text) {
    const key = recording.ownKey(root, filename);
    if (key === null || !OWN_SCRIPT.test(filename) || NOT_COUNTED.test(filename)) {
        return null;
    }
    let map = components.inlineMap(text);
    if (!map) {
        recording.skip(key, 'Angular gave its compiled code no source map');
        return null;
    }
    const dir = path.dirname(filename);
    const files = [filename, ...(map.sources || []).map((s) => path.resolve(dir, s))
        .filter((f) => f !== filename && /\.html?$/.test(f) && recording.ownKey(root, f) !== null)];
    let code = text.replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, '');
    let changed = false;
    for (const file of [...new Set(files)]) {
        const fileKey = recording.ownKey(root, file);
        let out = null;
        try {
            out = components.instrumentCompiled(file, file, fileKey, code, map, { chain: true, template: file !== filename });
        } catch (error) {
            // (Istanbul's own limits on compiled code: a switch whose place the map does not give)
            recording.skip(fileKey, `could not instrument its compiled code: ${String(error.message || error).split('\n')[0]}`);
        }
        if (out) {
            [code, map, changed] = [out.code, out.map, true];
        }
    }
    return changed ? inlined(code, map) : null;
}

function patch(transformer) {
    const proto = transformer && transformer.prototype;
    if (!proto || proto.iwcCounted) {
        return;
    }
    const transformData = proto.transformData;
    const root = recording.appRoot();
    proto.transformData = async function transformDataCounted(filename, ...rest) {
        const out = await transformData.call(this, filename, ...rest);
        const text = Buffer.from(out).toString('utf8');
        const withCounters = counted(root, filename, text);
        return withCounters === null ? out : Buffer.from(withCounters, 'utf8');
    };
    proto.iwcCounted = true;
}

const load = Module._load;
Module._load = function loadPatched(request, ...rest) {
    const loaded = load.call(this, request, ...rest);
    if (TRANSFORMER.test(request) && loaded) {
        patch(loaded.JavaScriptTransformer);
    }
    return loaded;
};
