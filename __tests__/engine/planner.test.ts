import { unknownValue } from '../../src/engine/json';
import { isMasked } from '../../src/engine/mask';
import { byAddress, notesStack, NotesWorld } from './fake-harness';

/** The planner through the fake in-memory kind: no emulator, a real local state backend. */
describe('planner', () => {
  let world: NotesWorld;
  beforeEach(async () => {
    world = await NotesWorld.open();
  });
  afterEach(() => world.close());

  test('new resources are created; a reference to one not yet created is unknown until apply', async () => {
    const changes = await world.plan(notesStack({ a: { title: 'A' }, b: { title: 'B', parent_id: '${fleetform_note.a.id}' } }));
    expect(changes.map((c) => [c.address, c.action])).toEqual([
      ['fleetform_note.a', 'create'],
      ['fleetform_note.b', 'create'],
    ]);
    expect(byAddress(changes, 'fleetform_note.b').after).toEqual({ title: 'B', text: '', parent_id: unknownValue });
    expect(byAddress(changes, 'fleetform_note.b').dependsOn).toEqual(['fleetform_note.a']);
  });

  test('once applied: unchanged is a no-op, a changed text an update, a changed title a replace for the declared reason', async () => {
    await world.converge(notesStack({ a: { title: 'A', text: 'one' }, b: { title: 'B' } }));
    expect((await world.plan(notesStack({ a: { title: 'A', text: 'one' }, b: { title: 'B' } }))).map((c) => c.action)).toEqual([
      'no-op',
      'no-op',
    ]);
    const changes = await world.plan(notesStack({ a: { title: 'A', text: 'two' }, b: { title: 'B2' } }));
    const a = byAddress(changes, 'fleetform_note.a');
    expect(a.action).toBe('update');
    expect(a.changes).toEqual([{ path: 'text', kind: 'change', before: 'one', after: 'two' }]);
    const b = byAddress(changes, 'fleetform_note.b');
    expect(b.action).toBe('replace');
    expect(b.replaceReasons).toEqual(['title']);
    expect(b.notes.map((n) => n.message)).toContain('a new note is written');
  });

  test('a declared sensitive attribute is masked in the plan and in state, and a change of it still shows', async () => {
    const changes = await world.plan(notesStack({ a: { title: 'A', secret: 'hunter2' } }));
    expect(JSON.stringify(changes)).not.toContain('hunter2');
    expect(isMasked(byAddress(changes, 'fleetform_note.a').after?.secret)).toBe(true);
    expect(byAddress(changes, 'fleetform_note.a').sensitivePaths).toEqual(['secret']);
    expect((await world.apply(notesStack({ a: { title: 'A', secret: 'hunter2' } }), changes)).failed).toEqual([]);
    expect(JSON.stringify(await world.state())).not.toContain('hunter2');
    const next = await world.plan(notesStack({ a: { title: 'A', secret: 'swordfish' } }));
    expect(JSON.stringify(next)).not.toContain('swordfish');
    expect(byAddress(next, 'fleetform_note.a').action).toBe('update');
  });

  test('a change made outside is drift; a note deleted outside is created again; one removed from code is deleted', async () => {
    await world.converge(notesStack({ a: { title: 'A', text: 'mine' }, b: { title: 'B' }, c: { title: 'C' } }));
    const state = await world.state();
    const idOf = (name: string): string => state.resources[`fleetform_note.${name}`]?.ids.id as string;
    const a = world.store.notes.get(idOf('a'));
    world.store.notes.set(idOf('a'), { ...(a as NonNullable<typeof a>), text: 'theirs', version: 2 });
    world.store.notes.delete(idOf('b'));
    const changes = await world.plan(notesStack({ a: { title: 'A', text: 'mine' }, b: { title: 'B' } }));
    expect(byAddress(changes, 'fleetform_note.a').drift).toEqual([{ path: 'text', kind: 'change', before: 'mine', after: 'theirs' }]);
    expect(byAddress(changes, 'fleetform_note.a').action).toBe('update');
    expect(byAddress(changes, 'fleetform_note.b')).toMatchObject({ action: 'create', vanished: true });
    expect(byAddress(changes, 'fleetform_note.c').action).toBe('delete');
  });

  test('a read that fails stops the plan instead of passing for a deleted note', async () => {
    await world.converge(notesStack({ a: { title: 'A' } }));
    const id = (await world.state()).resources['fleetform_note.a']?.ids.id as string;
    world.store.failOn.add(`observe:${id}`);
    await expect(world.plan(notesStack({ a: { title: 'A' } }))).rejects.toThrow(/could not read/);
  });

  test('attributes the declaration refuses are problems naming the attribute, without a secret in clear', async () => {
    const changes = await world.plan(
      notesStack({ a: { title: 'A', txet: 'x', secret: 'hunter2' }, b: { title: '' }, c: { text: 'no title' } }),
    );
    expect(byAddress(changes, 'fleetform_note.a').problems).toEqual([
      { path: 'txet', message: 'fleetform_note has no attribute txet', hint: 'did you mean text?' },
    ]);
    expect(JSON.stringify(byAddress(changes, 'fleetform_note.a'))).not.toContain('hunter2');
    expect(byAddress(changes, 'fleetform_note.b').problems).toEqual([
      expect.objectContaining({ path: 'title', message: 'a note needs a title' }),
    ]);
    expect(byAddress(changes, 'fleetform_note.c').problems).toEqual([
      expect.objectContaining({ path: 'title', message: 'title is required' }),
    ]);
  });

  test('destroy plans the removal of everything in state', async () => {
    await world.converge(notesStack({ a: { title: 'A' }, b: { title: 'B', parent_id: '${fleetform_note.a.id}' } }));
    const changes = await world.plan(notesStack({ a: { title: 'A' }, b: { title: 'B', parent_id: '${fleetform_note.a.id}' } }), {
      destroy: true,
    });
    expect(changes.map((c) => c.action)).toEqual(['delete', 'delete']);
  });
});
