/**
 * What HTTP servers read from a request, decided without trusting it: the path of its
 * target, its percent-encoded parts, its JSON body. Malformed input is a refusal with a
 * status and a message (a 4xx), never an exception from deep inside a route.
 */

export type Read<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly status: 400 | 413; readonly message: string };

const refuse = (status: 400 | 413, message: string): Read<never> => ({ ok: false, status, message });

/**
 * The path of a request target (`/a/b?q`: `/a/b`), not decoded and not normalized; the
 * absolute form a proxy may send (`http://host/a/b`) gives its path too.
 */
export function targetPath(target: string | undefined): Read<string> {
  const text = target ?? '';
  if (text.startsWith('/')) return { ok: true, value: text.split(/[?#]/, 1)[0] as string };
  if (/^https?:\/\//i.test(text)) {
    try {
      return { ok: true, value: new URL(text).pathname };
    } catch {
      // refused below
    }
  }
  return refuse(400, `the request target ${JSON.stringify(text.slice(0, 200))} is not a path`);
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** A percent-encoded part of a path, decoded; refused when its escapes are not UTF-8. */
export function decodePathPart(part: string, what: string): Read<string> {
  try {
    return { ok: true, value: decodeURIComponent(part) };
  } catch {
    return refuse(400, `${what} ${JSON.stringify(part.slice(0, 200))} is not valid percent-encoded UTF-8`);
  }
}

/** A lone UTF-16 surrogate: what `\uD800` in JSON gives, and no UTF-8 text can hold. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether every string and key in a parsed JSON value is well-formed Unicode. */
export function wellFormedStrings(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (typeof v === 'string') {
      if (LONE_SURROGATE.test(v)) return false;
    } else if (Array.isArray(v)) {
      pending.push(...(v as unknown[]));
    } else if (typeof v === 'object' && v !== null) {
      for (const [k, item] of Object.entries(v)) {
        if (LONE_SURROGATE.test(k)) return false;
        pending.push(item);
      }
    }
  }
  return true;
}

/** UTF-8 bytes as text; refused when they are not UTF-8. */
export function utf8Text(bytes: Uint8Array, what = 'the request body'): Read<string> {
  try {
    return { ok: true, value: UTF8.decode(bytes) };
  } catch {
    return refuse(400, `${what} is not valid UTF-8`);
  }
}

/** A request body holding one JSON object (empty: `{}`), its strings well-formed. */
export function jsonObjectBody(bytes: Uint8Array): Read<Record<string, unknown>> {
  const text = utf8Text(bytes);
  if (!text.ok) return text;
  if (text.value.trim() === '') return { ok: true, value: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.value);
  } catch (err) {
    return refuse(400, `the request body is not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return refuse(400, 'the request body must be a JSON object');
  if (!wellFormedStrings(parsed)) return refuse(400, 'the request body holds a string that is not valid Unicode (a lone surrogate)');
  return { ok: true, value: parsed as Record<string, unknown> };
}
