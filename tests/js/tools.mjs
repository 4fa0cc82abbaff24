// The project's Node tools (pipeline/kits/node/node_modules, installed by hack/setup)
// and the instrumenting stage's CommonJS modules, for tests that run them for real.
import { createRequire } from 'node:module';

export const tools = createRequire(new URL('../../pipeline/kits/node/', import.meta.url));
export const stage = createRequire(new URL('../../pipeline/stages/instrumenting/', import.meta.url));

// Istanbul as instrument.js sets it up (a classic script, compact output).
export function instrument(code, key, esModules = false) {
  const { createInstrumenter } = tools('istanbul-lib-instrument');
  const instrumenter = createInstrumenter({
    coverageVariable: '__coverage__', produceSourceMap: false, compact: true, preserveComments: false,
    coverageGlobalScope: 'globalThis', coverageGlobalScopeFunc: false, esModules,
  });
  const out = instrumenter.instrumentSync(code, key);
  return { code: out, fc: instrumenter.lastFileCoverage() };
}
