import { execFileSync } from 'node:child_process';
import { heapGrowthFlag, RECONCILER_HEAP_GROWING_PERCENT } from '../../src/reconciler/heap-growth';

describe('the reconciler bounds its heap growth', () => {
  it('sets the growth flag when node was given no heap option', () => {
    expect(heapGrowthFlag([], undefined)).toBe(`--heap-growing-percent=${RECONCILER_HEAP_GROWING_PERCENT}`);
    expect(heapGrowthFlag(['--enable-source-maps'], '--trace-warnings')).toBe(`--heap-growing-percent=${RECONCILER_HEAP_GROWING_PERCENT}`);
  });

  it.each([
    [['--max-old-space-size=300'], undefined],
    [['--max_old_space_size=300'], undefined],
    [['--heap-growing-percent=20'], undefined],
    [[], '--max-old-space-size=2048'],
    [[], '--enable-source-maps --max-heap-size=512'],
  ])('leaves the heap as the user set it (%j, NODE_OPTIONS %j)', (argv, nodeOptions) => {
    expect(heapGrowthFlag(argv, nodeOptions)).toBeUndefined();
  });

  it("is a flag this node's V8 knows (an unknown flag would be ignored without a word)", () => {
    const options = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
    expect(options).toContain('--heap-growing-percent');
  });
});
