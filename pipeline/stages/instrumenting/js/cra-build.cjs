#!/usr/bin/env node
/*
 * `react-scripts build` with Istanbul: loads Create React App's own webpack config
 * factory, adds our Babel plugin (babel-plugin.cjs) to the babel-loader that compiles
 * the app's src/ folder (not the one for dependencies), turns that loader's cache off
 * (a cached module would skip instrumenting and recording), then runs CRA's build
 * script unchanged. Run with the app's copy as the working directory. It must not
 * change any other part of CRA's configuration.
 */
'use strict';

const path = require('path');
const { createRequire } = require('module');

// CRA's build script sets these first thing; its config factory refuses to load without.
process.env.BABEL_ENV = 'production';
process.env.NODE_ENV = 'production';

const root = process.cwd();
const appRequire = createRequire(path.join(root, 'package.json'));
const configPath = appRequire.resolve('react-scripts/config/webpack.config');
const factory = appRequire(configPath);
const plugin = path.join(__dirname, 'babel-plugin.cjs');

function isAppBabelLoader(rule) {
    const loader = typeof rule.loader === 'string' ? rule.loader : '';
    const presets = (rule.options && rule.options.presets) || [];
    return loader.includes('babel-loader') &&
        presets.some((p) => String(Array.isArray(p) ? p[0] : p).includes('babel-preset-react-app'));
}

function instrumented(env) {
    const config = factory(env);
    let added = 0;
    for (const rule of config.module.rules) {
        for (const inner of rule.oneOf || []) {
            if (isAppBabelLoader(inner)) {
                inner.options.plugins = [...(inner.options.plugins || []), plugin];
                inner.options.cacheDirectory = false;
                added += 1;
            }
        }
    }
    if (added === 0) {
        throw new Error("iwc: no babel-loader for the app's source in this react-scripts version");
    }
    return config;
}

require.cache[configPath].exports = instrumented;
appRequire('react-scripts/scripts/build');
