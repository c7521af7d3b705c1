import { gate } from './fake-kind';
import { byAddress, notesStack, NotesWorld } from './fake-harness';

/** The executor through the fake in-memory kind: no emulator, a real local state backend. */
describe('executor', () => {
  let world: NotesWorld;
  afterEach(() => world.close());

  test('creates follow dependencies and receive the ids of what they refer to; deletes go in reverse', async () => {
    world = await NotesWorld.open();
    const stack = notesStack({
      c: { title: 'C', parent_id: '${fleetform_note.b.id}' },
      b: { title: 'B', parent_id: '${fleetform_note.a.id}' },
      a: { title: 'A' },
    });
    const outcome = await world.converge(stack, 4);
    expect(outcome).toEqual({ applied: 3, failed: [], skipped: [] });
    expect(world.store.log).toEqual(['create:A', 'create:B', 'create:C']);
    const state = await world.state();
    const id = (name: string): string | undefined => state.resources[`fleetform_note.${name}`]?.ids.id;
    expect(world.store.notes.get(id('b') as string)?.parentId).toBe(id('a'));
    expect(world.store.notes.get(id('c') as string)?.parentId).toBe(id('b'));
    expect(state.resources['fleetform_note.c']?.attributes).toEqual({ title: 'C', text: '', parent_id: id('b') });

    world.store.log.length = 0;
    expect((await world.converge(notesStack({}), 4)).failed).toEqual([]);
    expect(world.store.log).toEqual(['delete:C', 'delete:B', 'delete:A']);
    expect((await world.state()).resources).toEqual({});
  });

  test.each([
    ['delete-first', ['delete:B', 'create:B2']],
    ['create-first', ['create:B2', 'delete:B']],
  ] as const)('a %s kind replaces in that order', async (order, expected) => {
    world = await NotesWorld.open(order);
    await world.converge(notesStack({ b: { title: 'B' } }));
    const before = (await world.state()).resources['fleetform_note.b']?.ids.id;
    world.store.log.length = 0;
    const changes = await world.plan(notesStack({ b: { title: 'B2' } }));
    expect(byAddress(changes, 'fleetform_note.b').replaceOrder).toBe(order);
    expect((await world.apply(notesStack({ b: { title: 'B2' } }), changes)).failed).toEqual([]);
    expect(world.store.log).toEqual(expected);
    const after = (await world.state()).resources['fleetform_note.b'];
    expect(after?.ids.id).not.toBe(before);
    expect([...world.store.notes.values()].map((n) => n.title)).toEqual(['B2']);
  });

  test('no more writes run at once than the parallelism allows, and that many do', async () => {
    world = await NotesWorld.open();
    const titles = ['N1', 'N2', 'N3', 'N4', 'N5', 'N6', 'N7'];
    const gates = new Map(titles.map((t) => [t, gate()]));
    for (const [t, g] of gates) world.store.holds.set(t, g);
    const stack = notesStack(Object.fromEntries(titles.map((t) => [t.toLowerCase(), { title: t }])));
    const changes = await world.plan(stack);
    const applying = world.apply(stack, changes, 3);
    // Let the writes go one by one, each time once the next one has started.
    for (let i = 0; i < titles.length; i++) {
      await world.store.startedAtLeast(Math.min(titles.length, i + 3));
      expect(world.store.inFlight).toBeLessThanOrEqual(3);
      const held = [...gates.values()][i];
      held?.open();
    }
    await applying;
    expect(world.store.peakInFlight).toBe(3);
    expect(world.store.log).toHaveLength(titles.length);
  });

  test('an object that exists before its create finishes is checkpointed: a failure after it leaves its id in state', async () => {
    world = await NotesWorld.open();
    world.store.failOn.add('create-after-checkpoint:A');
    const outcome = await world.converge(notesStack({ a: { title: 'A' } }));
    expect(outcome.failed.map((f) => f.address)).toEqual(['fleetform_note.a']);
    const entry = (await world.state()).resources['fleetform_note.a'];
    expect(entry?.ids.id).toBe([...world.store.notes.keys()][0]);
    expect(entry?.attributes).toBeNull();
    // The next plan reads the object it made instead of creating a second one.
    world.store.failOn.clear();
    const changes = await world.plan(notesStack({ a: { title: 'A', text: 'now' } }));
    expect(byAddress(changes, 'fleetform_note.a')).toMatchObject({ action: 'update', before: { title: 'A', text: '' } });
    expect((await world.apply(notesStack({ a: { title: 'A', text: 'now' } }), changes)).failed).toEqual([]);
    expect([...world.store.notes.values()].map((n) => n.text)).toEqual(['now']);
  });

  test('a failure in the middle skips what depends on it, finishes the rest and keeps what was done in state', async () => {
    world = await NotesWorld.open();
    world.store.failOn.add('create:B');
    const stack = notesStack({
      a: { title: 'A' },
      b: { title: 'B', parent_id: '${fleetform_note.a.id}' },
      c: { title: 'C', parent_id: '${fleetform_note.b.id}' },
      x: { title: 'X' },
    });
    const outcome = await world.converge(stack, 1);
    expect(outcome.applied).toBe(2);
    expect(outcome.failed.map((f) => f.address)).toEqual(['fleetform_note.b']);
    expect(outcome.skipped).toEqual(['fleetform_note.c']);
    expect(world.reporter.events).toContain('skipped:fleetform_note.c');
    const after = (await world.state()).resources;
    expect(Object.keys(after).sort()).toEqual(['fleetform_note.a', 'fleetform_note.b', 'fleetform_note.x']);
    // The failed create stays recorded as an intent: the next plan looks for what it made.
    expect(after['fleetform_note.b']?.status).toBe('creating');
    expect(after['fleetform_note.b']?.ids).toEqual({});
    // The next run finishes the work.
    world.store.failOn.clear();
    const changes = await world.plan(stack);
    expect(changes.map((c) => [c.address, c.action])).toEqual([
      ['fleetform_note.a', 'no-op'],
      ['fleetform_note.b', 'create'],
      ['fleetform_note.c', 'create'],
      ['fleetform_note.x', 'no-op'],
    ]);
    expect((await world.apply(stack, changes)).failed).toEqual([]);
    expect(world.store.notes.size).toBe(4);
  });

  test('an object changed since the plan is not overwritten', async () => {
    world = await NotesWorld.open();
    await world.converge(notesStack({ a: { title: 'A', text: 'one' } }));
    const changes = await world.plan(notesStack({ a: { title: 'A', text: 'two' } }));
    const id = (await world.state()).resources['fleetform_note.a']?.ids.id as string;
    const note = world.store.notes.get(id);
    world.store.notes.set(id, { ...(note as NonNullable<typeof note>), text: 'theirs', version: 9 });
    const outcome = await world.apply(notesStack({ a: { title: 'A', text: 'two' } }), changes);
    expect(outcome.failed.map((f) => String(f.error))).toEqual([expect.stringContaining('changed since the plan')]);
    expect(world.store.notes.get(id)?.text).toBe('theirs');
  });
});
