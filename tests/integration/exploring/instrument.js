// Test helper: instrument one script with the project's own istanbul-lib-instrument
// and print its initial file coverage (the coverage map entry) as JSON.
const fs = require('fs');
const { createInstrumenter } = require('istanbul-lib-instrument');
const [, , source, target, name] = process.argv;
const instrumenter = createInstrumenter({ coverageVariable: '__coverage__', esModules: false });
fs.writeFileSync(target, instrumenter.instrumentSync(fs.readFileSync(source, 'utf8'), name));
process.stdout.write(JSON.stringify(instrumenter.lastFileCoverage()));
