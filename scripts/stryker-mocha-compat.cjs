// Loaded with --require by `npm run test:stryker` (NODE_OPTIONS, so Stryker's test runner processes get it
// too). @stryker-mutator/mocha-runner 10.1.1 requires mocha's internals by extensionless paths
// (mocha/lib/cli/run-helpers, .../options, .../collect-files); mocha 12 names those files *.cjs, which
// Node's require does not try. Teaching require the .cjs extension is all it takes; nothing else
// (npm test, the tiers) loads this file. Remove it once the runner resolves mocha 12 itself.
const Module = require('node:module');
// eslint-disable-next-line n/no-deprecated-api -- the one hook for extension resolution of require()
Module._extensions['.cjs'] ??= Module._extensions['.js'];
