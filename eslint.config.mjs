// ESLint for iwc-bench's own JavaScript. hack/verify runs it; alone:
//   pipeline/kits/node/node_modules/.bin/eslint .
//
// Not the apps under evaluation (examples/, tests/corpus/, tests/fixtures/, the
// integration tests' fixture apps, tests/js/fixtures/: compiler output): they are inputs, linted by the quality stage's own
// metrics with its own rules. ESLint, its rules and the globals lists come from the
// project's Node tools (pipeline/kits/node, installed by hack/setup).
//
// Three kinds of code, three sets of globals:
//   page scripts  run inside the evaluated page (injected by kits/injecting.py): the
//                 browser's globals only, ES modules
//   report        the report's own script, a classic browser script
//   Node tools    the quality stage's server, instrumenting, the build hooks, the tests
import { createRequire } from 'node:module';

const tools = createRequire(new URL('./pipeline/kits/node/', import.meta.url));
const js = tools('@eslint/js');
const globals = tools('globals');

// Scripts that run in an evaluated page. Each is an ES module that kits/injecting.py
// turns into one function expression (and tests/js import as it is).
const PAGE = [
  'pipeline/kits/page/*.mjs',
  'pipeline/stages/exploring/*.mjs',
];

// The house caps (tests/unit/packaging/test_readable_sizes.py holds Python to the same
// numbers, and this file to asking for them): a function over 60 lines or a module over
// 500 is two things. Lines counted as they stand, blank and comment lines included.
const MAX_FUNCTION_LINES = 60;
const MAX_MODULE_LINES = 500;

export default [
  {
    ignores: [
      '**/node_modules/**',
      '.venv/**',
      'examples/**',
      'tests/corpus/**',
      'tests/fixtures/**',
      'tests/integration/**/fixtures/**',
      'tests/js/fixtures/**',
    ],
  },
  js.configs.recommended,
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    // Beyond js/recommended (all on, as it comes): what our code already holds to.
    rules: {
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-var': 'error',
      'prefer-const': 'error',
      'max-lines-per-function': ['error', { max: MAX_FUNCTION_LINES, skipBlankLines: false, skipComments: false }],
      'max-lines': ['error', { max: MAX_MODULE_LINES, skipBlankLines: false, skipComments: false }],
    },
  },
  {
    files: PAGE,
    languageOptions: { sourceType: 'module', globals: { ...globals.browser } },
  },
  {
    // an init script (kits/browser.py adds it to pages under Playwright's clock)
    files: ['pipeline/kits/page/*.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser } },
  },
  {
    files: ['pipeline/stages/reporting/templates/*.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser } },
    // the report's script is ES5 throughout (var, function expressions), as it was
    // written; the two rules added above are for the code written since
    rules: { 'no-var': 'off', 'prefer-const': 'off' },
  },
  {
    files: ['**/*.mjs'],
    ignores: PAGE,
    languageOptions: { sourceType: 'module', globals: { ...globals.node } },
  },
  {
    files: ['pipeline/stages/instrumenting/**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
  },
];
