/** Edit distance (insertions, deletions, substitutions, adjacent swaps) between two words. */
function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array<number>(rows * cols).fill(0);
  const at = (i: number, j: number): number => d[i * cols + j] as number;
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      d[i * cols + j] = best;
    }
  }
  return at(a.length, b.length);
}

/**
 * The candidate a mistyped name most likely meant: the closest by edit distance (case
 * ignored), when it is close enough to be a typo (at most a third of the name's length,
 * and at least 1), else undefined.
 */
export function nearestName(input: string, candidates: readonly string[]): string | undefined {
  const typed = input.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = editDistance(typed, name.toLowerCase());
    if (best === undefined || distance < best.distance) best = { name, distance };
  }
  if (best === undefined) return undefined;
  return best.distance <= Math.max(1, Math.floor(input.length / 3)) ? best.name : undefined;
}

/** The words of a CamelCase or snake_case name, lower-cased. */
function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}

/**
 * Up to `limit` candidates nearest to a name that matched none: those sharing the most
 * words with it first (`UpdateMachinePart` shares two with `UpdateRobotPart`), then the
 * smallest edit distance, then alphabetical order.
 */
export function nearNames(input: string, candidates: readonly string[], limit = 3): string[] {
  const typed = input.toLowerCase();
  const typedWords = new Set(wordsOf(input));
  return candidates
    .map((name) => ({
      name,
      shared: wordsOf(name).filter((w) => typedWords.has(w)).length,
      distance: editDistance(typed, name.toLowerCase()),
    }))
    .sort((a, b) => b.shared - a.shared || a.distance - b.distance || a.name.localeCompare(b.name))
    .slice(0, limit)
    .map((c) => c.name);
}
