import { validateMachineConfig } from '../../src/domain';
import { declaredFetch, resolutionFindings } from '../../src/engine/kinds/machine-fragments';
import { resolveFetching, type FetchedFragment, type FragmentFetch } from '../../src/engine/fragment-fetch';

/** Fragments as plain data: by id, revisions oldest first, tags; counts each read. */
function service(fragments: Record<string, { revisions: Record<string, unknown>[]; tags?: Record<string, string> }>) {
  const reads: string[] = [];
  const fetch: FragmentFetch = async (id, version) => {
    reads.push(`${id}@${version ?? ''}`);
    const f = fragments[id];
    if (!f) return 'unknown-fragment';
    const revision = version === undefined ? String(f.revisions.length) : /^\d+$/.test(version) ? version : f.tags?.[version];
    const config = revision === undefined ? undefined : f.revisions[Number(revision) - 1];
    return config === undefined ? 'unknown-version' : ({ id, name: id, revision: revision as string, config } satisfies FetchedFragment);
  };
  return { fetch, reads };
}

const board = (name: string) => ({ name, api: 'rdk:component:board', model: 'acme:sensors:pi-board' });

test('nested imports are read a level per round, each fragment at each version once', async () => {
  const { fetch, reads } = service({
    outer: { revisions: [{ components: [board('a')], fragments: [{ id: 'inner' }] }] },
    inner: { revisions: [{ components: [board('b')] }, { components: [board('c')] }] },
  });
  const resolution = await resolveFetching('picker', { fragments: [{ id: 'outer' }, { id: 'inner', version: '1', prefix: 'old' }] }, fetch);
  expect(resolution.errors).toEqual([]);
  expect((resolution.config.components as Array<{ name: string }>).map((c) => c.name).sort()).toEqual(['a', 'c', 'old-b']);
  expect(reads.sort()).toEqual(['inner@', 'inner@1', 'outer@']);
});

test('machines resolved with one fetch share what it read: each fragment at each version is read once for them all', async () => {
  const { fetch, reads } = service({
    outer: { revisions: [{ components: [board('a')], fragments: [{ id: 'inner' }] }] },
    inner: { revisions: [{ components: [board('b')] }] },
  });
  for (const machine of ['picker-1', 'picker-2', 'picker-3']) {
    const resolution = await resolveFetching(machine, { fragments: [{ id: 'outer' }] }, fetch);
    expect(resolution.errors).toEqual([]);
    expect((resolution.config.components as Array<{ name: string }>).map((c) => c.name).sort()).toEqual(['a', 'b']);
  }
  expect(reads.sort()).toEqual(['inner@', 'outer@']);
  // Another fetch reads anew.
  const other = service({ outer: { revisions: [{ components: [board('z')] }] } });
  const resolution = await resolveFetching('picker-1', { fragments: [{ id: 'outer' }] }, other.fetch);
  expect((resolution.config.components as Array<{ name: string }>).map((c) => c.name)).toEqual(['z']);
  expect(other.reads).toEqual(['outer@']);
});

test('a fragment the stack declares is taken as declared at its latest revision and at a tag naming it; older revisions and other tags from the service', async () => {
  const { fetch } = service({
    rig: { revisions: [{ components: [board('v1')] }, { components: [board('v2')] }], tags: { stable: '2', old: '1' } },
  });
  const declared = declaredFetch(
    async (id) => (id === 'rig' ? { name: 'rig', config: { components: [board('next')] } } : undefined),
    fetch,
  );
  const name = async (version: string | undefined) => {
    const f = await declared('rig', version);
    return typeof f === 'string' ? f : (f.config.components as Array<{ name: string }>)[0]?.name;
  };
  expect(await name(undefined)).toBe('next');
  expect(await name('stable')).toBe('next');
  expect(await name('old')).toBe('v1');
  expect(await name('2')).toBe('v2');
  expect(await name('nope')).toBe('unknown-version');
});

test('an import the machine cannot read is a warning naming the machine, the import and what it lacks; the rest still resolves and is checked', async () => {
  const { fetch } = service({ rig: { revisions: [{ components: [board('a')] }] } });
  const config = {
    components: [board('own')],
    fragments: ['45ab-gone', { id: 'rig' }, { id: 'rig', version: 'stable', prefix: 'old' }],
  };
  const resolution = await resolveFetching('rw-06', config, fetch);
  const rules = (c: unknown) => validateMachineConfig(c, { allowUnpinnedModules: true, pathPrefix: 'config' });
  const { problems, notes } = resolutionFindings('rw-06', resolution, rules);
  expect(problems).toEqual([]);
  expect((resolution.config.components as Array<{ name: string }>).map((c) => c.name)).toEqual(['own', 'a']);
  const leftOut = notes.filter((n) => n.path?.startsWith('config.fragments'));
  expect(leftOut.map((n) => n.path)).toEqual(['config.fragments[0]', 'config.fragments[2].version']);
  expect(leftOut.every((n) => n.level === 'warning')).toBe(true);
  expect(leftOut[0]?.message).toMatch(
    /^machine rw-06, fragment 45ab-gone: there is no fragment 45ab-gone this machine's organization can read/,
  );
  expect(leftOut[0]?.message).toContain('runs without anything the fragment would bring');
  expect(leftOut[0]?.message).toContain('create the fragment, share it as public or unlisted, or remove the import');
  expect(leftOut[1]?.message).toContain('has no revision or tag "stable"');
  expect(leftOut[1]?.message).toContain('import an existing revision or tag');
  // The entries it has are checked as ever: a model no module provides is a warning naming the fragment.
  expect(notes.some((n) => n.path === 'config.components.a.model' && n.message.startsWith('machine rw-06, fragment rig (rig): '))).toBe(
    true,
  );
});

test('other resolution errors stay problems: a fragment importing itself', async () => {
  const { fetch } = service({ loop: { revisions: [{ fragments: ['loop'] }] } });
  const resolution = await resolveFetching('m', { fragments: ['loop'] }, fetch);
  const { problems, notes } = resolutionFindings('m', resolution, (c) => validateMachineConfig(c));
  expect(problems.map((p) => p.path)).toEqual(['config["fragment:loop.fragments[0]"]']);
  expect(notes).toEqual([]);
});
