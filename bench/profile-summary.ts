/** Sums a V8 CPU profile's samples per function (self time) and formats the top entries. */

export interface CpuProfile {
  readonly nodes: ReadonlyArray<{ id: number; hitCount?: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
  readonly startTime: number;
  readonly endTime: number;
}

/** The `limit` functions with the most self time, as `percent  ms  function  file:line` lines. */
export function topSelfTime(profile: CpuProfile, limit: number): string {
  const total = profile.nodes.reduce((n, x) => n + (x.hitCount ?? 0), 0) || 1;
  const ms = (profile.endTime - profile.startTime) / 1000;
  const byFn = new Map<string, number>();
  for (const node of profile.nodes) {
    const { functionName, url, lineNumber } = node.callFrame;
    const file = url.replace(/^file:\/\//, '').replace(`${process.cwd()}/`, '');
    const key = `${functionName || '(anonymous)'}  ${file || '(native)'}${file ? `:${lineNumber + 1}` : ''}`;
    byFn.set(key, (byFn.get(key) ?? 0) + (node.hitCount ?? 0));
  }
  return [...byFn.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(
      ([k, n]) =>
        `${((100 * n) / total).toFixed(1).padStart(5)}%  ${Math.round((ms * n) / total)
          .toString()
          .padStart(6)} ms  ${k}`,
    )
    .join('\n');
}
