/**
 * The state document's text, produced in pieces: byte for byte what
 * `JSON.stringify(state, null, 2) + "\n"` gives, without ever holding the whole text (a
 * fleet of 10,000 machines makes a state of about 100 MB once indented).
 */
import type { State } from './schema';

/** `JSON.stringify(value, null, 2)` as it reads nested `depth` levels deep. */
function indented(value: unknown, depth: number): string {
  const text = JSON.stringify(value, null, 2);
  return depth === 0 ? text : text.replace(/\n/g, `\n${'  '.repeat(depth)}`);
}

/** The pieces of the state's text, one per top-level key and one per resource. */
export function* stateTextChunks(state: State): Generator<string> {
  const keys = Object.keys(state) as Array<keyof State>;
  yield '{';
  for (const [i, key] of keys.entries()) {
    const comma = i < keys.length - 1 ? ',' : '';
    const value = state[key];
    const addresses = key === 'resources' ? Object.keys(state.resources) : [];
    if (key !== 'resources' || addresses.length === 0) {
      yield `\n  ${JSON.stringify(key)}: ${indented(value, 1)}${comma}`;
      continue;
    }
    yield `\n  "resources": {`;
    for (const [j, address] of addresses.entries()) {
      yield `\n    ${JSON.stringify(address)}: ${indented(state.resources[address], 2)}${j < addresses.length - 1 ? ',' : ''}`;
    }
    yield `\n  }${comma}`;
  }
  yield keys.length === 0 ? '}\n' : '\n}\n';
}
