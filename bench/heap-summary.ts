/** Sums a V8 sampling heap profile's live allocations per function and formats the top entries. */

interface HeapNode {
  readonly callFrame: { functionName: string; url: string; lineNumber: number };
  readonly selfSize: number;
  readonly children: readonly HeapNode[];
}

export interface SamplingHeapProfile {
  readonly head: HeapNode;
}

/** The `limit` functions whose allocations still alive add up to the most, as `MB  function  file:line` lines. */
export function liveAllocationsTop(profile: SamplingHeapProfile, limit: number): string[] {
  const byFn = new Map<string, number>();
  const visit = (node: HeapNode) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const file = url.replace(/^file:\/\//, '').replace(/^.*\/(src|bench|node_modules)\//, '$1/');
    const key = `${functionName || '(anonymous)'}  ${file || '(native)'}${file ? `:${lineNumber + 1}` : ''}`;
    byFn.set(key, (byFn.get(key) ?? 0) + node.selfSize);
    for (const child of node.children) visit(child);
  };
  visit(profile.head);
  return [...byFn.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([k, bytes]) => `${(bytes / (1024 * 1024)).toFixed(0).padStart(6)} MB  ${k}`);
}
