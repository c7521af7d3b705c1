/**
 * An upper bound of the UTF-8 bytes of a JSON value's compact text (`JSON.stringify`), found
 * without writing the text: a plan sizes every config it writes, and all but the largest are
 * far under any message limit, which the bound shows at the cost of one walk that allocates
 * nothing. Where the bound is over the limit, the exact size is taken from the text.
 */

/** The longest text JSON.stringify writes for a finite number (`-0.0000012345678901234567`). */
const NUMBER_BYTES_AT_MOST = 25;

/** Each UTF-16 unit of a string is at most six bytes of JSON text (an escape `\uXXXX`), plus the two quotes. */
function stringBytesAtMost(s: string): number {
  return 6 * s.length + 2;
}

/**
 * At most how many bytes `JSON.stringify(value)` takes in UTF-8; `Infinity` for anything
 * that is not plain JSON data (a value with `toJSON`, a class instance, a bigint), whose text
 * only writing it can tell. Counting stops once it passes `limit`.
 */
export function jsonTextBytesAtMost(value: unknown, limit = Number.POSITIVE_INFINITY): number {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') total += stringBytesAtMost(v);
    else if (typeof v === 'number') total += NUMBER_BYTES_AT_MOST;
    else if (typeof v === 'boolean' || v === null || v === undefined) total += 5;
    else if (Array.isArray(v)) {
      // The brackets and a comma (or `null` for a hole) per item.
      total += 2 + 5 * v.length;
      for (let i = 0; i < v.length; i++) stack.push(v[i]);
    } else if (typeof v === 'object' && isPlainData(v)) {
      const record = v as Record<string, unknown>;
      total += 2;
      for (const key in record) {
        if (!Object.prototype.hasOwnProperty.call(record, key)) continue;
        // The key, its colon and a comma.
        total += stringBytesAtMost(key) + 2;
        stack.push(record[key]);
      }
    } else return Number.POSITIVE_INFINITY;
    if (total > limit) return total;
  }
  return total;
}

function isPlainData(v: object): boolean {
  const proto: unknown = Object.getPrototypeOf(v);
  return (proto === Object.prototype || proto === null) && typeof (v as { toJSON?: unknown }).toJSON !== 'function';
}
