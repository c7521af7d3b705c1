/**
 * Writes scripts/suite-seconds.json (what the suite sequencer orders a clean clone by) from
 * a jest run's JSON report: `node scripts/record-suite-seconds.js REPORT.json`.
 */
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const report = JSON.parse(fs.readFileSync(process.argv[2] ?? '', 'utf8'));
const seconds = report.testResults
  .map((r) => [path.relative(root, r.name).split(path.sep).join('/'), Math.round((r.endTime - r.startTime) / 1000)])
  .filter(([, s]) => s >= 5)
  .sort((a, b) => b[1] - a[1]);
fs.writeFileSync(path.join(__dirname, 'suite-seconds.json'), `${JSON.stringify(Object.fromEntries(seconds), null, 1)}\n`);
process.stdout.write(`${seconds.length} suites of 5 s or more recorded\n`);
