import * as fs from 'node:fs';
import { readBaseline } from '../../bench/baseline';
import { fillMarkers, markdownTable, PERFORMANCE_DOC, README, renderBlocks } from '../../bench/docs';

const blocks = renderBlocks(readBaseline());

describe('the performance tables', () => {
  it.each([
    ['docs/performance.md', PERFORMANCE_DOC],
    ['README.md', README],
  ])('%s holds what npm run bench:docs generates from bench/baseline.json', (_name, file) => {
    const text = fs.readFileSync(file, 'utf8');
    expect(fillMarkers(text, blocks)).toBe(text);
  });

  it('docs/performance.md has every table and README.md the summary', () => {
    const doc = fs.readFileSync(PERFORMANCE_DOC, 'utf8');
    for (const name of ['sizes', 'large', 'latency', 'ratios']) expect(doc).toContain(`<!-- bench:table:${name}:start -->`);
    expect(fs.readFileSync(README, 'utf8')).toContain('<!-- bench:summary:start -->');
  });

  it('replaces what lies between the markers and nothing else', () => {
    const text = 'before\n<!-- bench:table:sizes:start -->\nold figures\n<!-- bench:table:sizes:end -->\nafter\n';
    expect(fillMarkers(text, { sizes: 'new figures' })).toBe(
      'before\n<!-- bench:table:sizes:start -->\n\nnew figures\n\n<!-- bench:table:sizes:end -->\nafter\n',
    );
    expect(() => fillMarkers('<!-- bench:table:nope:start -->\n<!-- bench:table:nope:end -->', {})).toThrow(
      /no generated block named nope/,
    );
  });

  it('pads a table as Prettier writes Markdown', () => {
    expect(markdownTable(['a', 'bb'], [['1', '2222']])).toBe('| a   | bb   |\n| --- | ---- |\n| 1   | 2222 |');
  });
});
