/** Secrets by reference: the reference's schema, its reading, and placing a value at a config path. */
import {
  childPathOf,
  pathKeys,
  readAppSecretMessages,
  resolveSecretReference,
  secretReferencesSchema,
  withoutValueAt,
  withValueAt,
  type SecretSource,
} from '../../src/domain/secret-reference';
import { withoutReferencedValues, withResolvedSecrets } from '../../src/engine/secret-references';
import { Unknown } from '../../src/domain/plan-values';

const source = (env: Record<string, string>, files: Record<string, string> = {}, app: Record<string, string> = {}): SecretSource => ({
  env: (name) => env[name],
  file: (path) => (path in files ? { value: files[path] as string } : { error: 'no such file' }),
  app: (id) => app[id],
});

test('a path reads back as the keys childPath wrote, odd keys and indexes included', () => {
  for (const keys of [
    ['modules', 'acme_sensors', 'env', 'API_TOKEN'],
    ['fragments', 0, 'variables', 'api token'],
    ['remotes', 'arm-1', 'auth', 'credentials', 'payload'],
    ['a["b"]', 'c.d'],
  ]) {
    expect(pathKeys(childPathOf(keys))).toEqual(keys);
  }
  expect(pathKeys('')).toBeUndefined();
  expect(pathKeys('a..b')).toBeUndefined();
  expect(pathKeys('a[')).toBeUndefined();
});

test('a reference is a typed object: env by a name a shell sets, file by a path; anything else is refused', () => {
  expect(secretReferencesSchema.safeParse({ 'modules.m.env.K': { from: 'env', name: 'ACME_TOKEN' } }).success).toBe(true);
  expect(secretReferencesSchema.safeParse({ 'modules.m.env.K': { from: 'file', path: '/run/s' } }).success).toBe(true);
  expect(secretReferencesSchema.safeParse({ 'modules.m.env.K': { from: 'app', id: 'value-1' } }).success).toBe(true);
  for (const bad of [
    { from: 'app', id: '' },
    { from: 'app', id: 'a b' },
    { from: 'app', id: 'value-1', value: 'x' },
    { from: 'env', name: 'A-B' },
    { from: 'file', path: '' },
    { from: 'value', value: 'x' },
    { from: 'env', name: 'A', extra: '1' },
  ]) {
    expect(secretReferencesSchema.safeParse({ p: bad }).success).toBe(false);
  }
});

test('reading: the value, or why there is none (unset, empty, unreadable); one trailing line break of a file dropped', () => {
  expect(resolveSecretReference({ from: 'env', name: 'T' }, source({ T: 'v' }))).toEqual({ value: 'v' });
  expect(resolveSecretReference({ from: 'env', name: 'T' }, source({}))).toMatchObject({
    unresolved: { message: 'environment variable T is not set' },
  });
  expect(resolveSecretReference({ from: 'env', name: 'T' }, source({ T: '' }))).toMatchObject({
    unresolved: { message: 'environment variable T is empty' },
  });
  expect(resolveSecretReference({ from: 'file', path: '/s' }, source({}, { '/s': 'v\n\n' }))).toEqual({ value: 'v\n' });
  expect(resolveSecretReference({ from: 'file', path: '/s' }, source({}, { '/s': 'v\r\n' }))).toEqual({ value: 'v' });
  expect(resolveSecretReference({ from: 'file', path: '/x' }, source({}))).toMatchObject({
    unresolved: { message: 'file /x cannot be read: no such file' },
  });
});

test('an app reference reads the value the app handed over; without one it names the run that has none and the fix', () => {
  expect(resolveSecretReference({ from: 'app', id: 'value-1' }, source({}, {}, { 'value-1': 'v' }))).toEqual({ value: 'v' });
  const missing = resolveSecretReference({ from: 'app', id: 'value-2' }, source({}, {}, { 'value-1': 'v' }));
  expect(missing).toMatchObject({ unresolved: { message: expect.stringContaining('Secret.fromValue (value-2)') } });
  expect(missing).toMatchObject({ unresolved: { hint: expect.stringContaining('without a saved plan') } });
  expect(resolveSecretReference({ from: 'app', id: 'value-1' }, source({}, {}, { 'value-1': '' }))).toMatchObject({
    unresolved: { message: expect.stringContaining('is empty') },
  });
});

test('the channel reads one JSON message a line; other lines are counted, never kept', () => {
  const text = `${JSON.stringify({ id: 'value-1', value: 'a\nb' })}\nnot json\n${JSON.stringify({ id: 'value-2', value: 'c' })}\n{"id":"x y","value":"d"}\n`;
  const read = readAppSecretMessages(text);
  expect([...read.values]).toEqual([
    ['value-1', 'a\nb'],
    ['value-2', 'c'],
  ]);
  expect(read.unreadable).toBe(2);
});

test('a value is placed at its path (list entries by name or index) and taken out again, the document unchanged', () => {
  const doc = { modules: [{ name: 'm', type: 'registry' }], fragments: [{ id: 'f', variables: { pin: '1' } }] };
  const placed = withValueAt(doc, ['modules', 'm', 'env', 'API_TOKEN'], 's1');
  expect(placed).toEqual({ ...doc, modules: [{ name: 'm', type: 'registry', env: { API_TOKEN: 's1' } }] });
  expect(doc.modules[0]).toEqual({ name: 'm', type: 'registry' });
  expect(withValueAt(doc, ['fragments', 0, 'variables', 'token'], 's2')?.fragments).toEqual([
    { id: 'f', variables: { pin: '1', token: 's2' } },
  ]);
  expect(withValueAt(doc, ['modules', 'nope', 'env', 'K'], 's')).toBeUndefined();
  expect(withoutValueAt(placed, ['modules', 'm', 'env', 'API_TOKEN'])).toEqual(doc);
});

test('the engine places every value and names the machine, the field and the variable of each it cannot read', () => {
  const config = { modules: [{ name: 'm', type: 'registry' }] };
  const refs = {
    'modules.m.env.A_TOKEN': { from: 'env', name: 'A' },
    'modules.m.env.B_TOKEN': { from: 'env', name: 'B' },
    'modules.gone.env.C': { from: 'env', name: 'A' },
  };
  const out = withResolvedSecrets(config, refs, 'machine m1', source({ A: 'a-value' }));
  // A value that cannot be read is unknown in the plan, saying it is not given and how to give it, never a removal.
  const notGiven = Unknown.notGiven(
    'environment variable B is not set; export B with the secret in the shell or job that runs the plan and the apply',
  );
  expect(out.config).toEqual({ modules: [{ name: 'm', type: 'registry', env: { A_TOKEN: 'a-value', B_TOKEN: notGiven } }] });
  expect(out.problems.map((p) => [p.path, p.message])).toEqual([
    ['secrets["modules.m.env.B_TOKEN"]', 'machine m1 needs the secret modules.m.env.B_TOKEN: environment variable B is not set'],
    ['secrets["modules.gone.env.C"]', 'secret modules.gone.env.C of machine m1 names no field of its config'],
  ]);
  // The attributes code gives hold the references, not the values they fill.
  expect(withoutReferencedValues({ modules: { m: { name: 'm', env: { A_TOKEN: 'a-value' } } } }, refs)).toEqual({
    modules: { m: { name: 'm' } },
  });
});
