/**
 * Runs the longest suites first, so that no worker is left with a long suite at the end
 * while the other idles. Jest orders by the durations it cached on this machine; a clean
 * clone (CI) has none, and jest's fallback, file size, starts some of the longest suites
 * last. There the durations of a recent full run (scripts/suite-seconds.json, seconds by
 * suite, refreshed with `npm run test:seconds` after a full run) stand in; a suite that
 * file doesn't know counts as short.
 */
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;
const recorded = require('./suite-seconds.json');

const root = path.resolve(__dirname, '..');

class LongestFirst extends Sequencer {
  sort(tests) {
    const seconds = (test) => {
      const cached = this.time(test);
      if (cached != null) return cached / 1000;
      return recorded[path.relative(root, test.path).split(path.sep).join('/')] ?? 1;
    };
    const failed = (test) => (this.hasFailed(test) ? 1 : 0);
    return [...tests].sort((a, b) => failed(b) - failed(a) || seconds(b) - seconds(a));
  }
}

module.exports = LongestFirst;
