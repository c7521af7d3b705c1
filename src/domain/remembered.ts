/** How many answers a remembered function keeps before it starts over. */
const KEPT = 1024;

/**
 * `compute` remembering its answers by the text asked about: a fleet asks about a handful
 * of texts (versions, module ids) thousands of times. Texts longer than `longest` are not
 * kept; at most 1,024 answers are, all forgotten when that many are.
 */
export function rememberedByText<T>(compute: (text: string) => T, longest = 256): (text: string) => T {
  const known = new Map<string, T>();
  return (text) => {
    const answer = known.get(text);
    if (answer !== undefined || known.has(text)) return answer as T;
    const computed = compute(text);
    if (text.length <= longest) {
      if (known.size >= KEPT) known.clear();
      known.set(text, computed);
    }
    return computed;
  };
}
