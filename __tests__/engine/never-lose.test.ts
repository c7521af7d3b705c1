import { parseStackDocument } from '../../src/engine/desired/read-stacks';
import { byAddress, NotesWorld, notesStack } from './fake-harness';

let world: NotesWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('objects are never lost from state', () => {
  test('an interrupted create is found by name and adopted, never made twice', async () => {
    world = await NotesWorld.open();
    const stack = notesStack({ b: { title: 'B', text: 't' } });
    // A crash right after the service made B: state holds only the intent recorded before the call.
    await world.backend.record(
      { format_version: 1, stack: 's', lineage: (await world.state()).lineage, serial: 1, resources: {} },
      new Map([
        [
          'fleetform_note.b',
          {
            type: 'fleetform_note',
            ids: {},
            outputs: {},
            attributes: null,
            dependencies: [],
            private: { intent: { title: 'B' } },
            sensitive_paths: [],
            status: 'creating' as const,
          },
        ],
      ]),
    );
    world.store.notes.set('note-made', { id: 'note-made', title: 'B', text: 't', version: 1 });
    const changes = await world.plan(stack);
    expect(byAddress(changes, 'fleetform_note.b').action).toBe('adopt');
    expect((await world.apply(stack, changes)).failed).toEqual([]);
    expect(world.store.notes.size).toBe(1);
    expect((await world.state()).resources['fleetform_note.b']?.ids).toEqual({ id: 'note-made' });
    expect((await world.plan(stack)).map((c) => c.action)).toEqual(['no-op']);
  });

  test('an intent whose create made nothing is created once', async () => {
    world = await NotesWorld.open();
    world.store.failOn.add('create:B');
    const stack = notesStack({ b: { title: 'B' } });
    expect((await world.converge(stack)).failed.map((f) => f.address)).toEqual(['fleetform_note.b']);
    world.store.failOn.clear();
    expect(byAddress(await world.plan(stack), 'fleetform_note.b').action).toBe('create');
    await world.converge(stack);
    expect(world.store.notes.size).toBe(1);
  });

  test('a replaced object whose delete fails stays in state as deposed and a later apply deletes it', async () => {
    world = await NotesWorld.open('create-first');
    await world.converge(notesStack({ a: { title: 'A' } }));
    world.store.failOn.add('delete:A');
    const renamed = notesStack({ a: { title: 'A2' } });
    expect((await world.converge(renamed)).failed.map((f) => f.address)).toEqual(['fleetform_note.a']);
    const state = await world.state();
    expect(Object.keys(state.resources).sort()).toEqual(['fleetform_note.a', 'fleetform_note.a#deposed-1']);
    world.store.failOn.clear();
    const changes = await world.plan(renamed);
    const deposed = byAddress(changes, 'fleetform_note.a#deposed-1');
    expect([deposed.action, deposed.deposed]).toEqual(['delete', true]);
    expect((await world.apply(renamed, changes)).failed).toEqual([]);
    expect([...world.store.notes.values()].map((n) => n.title)).toEqual(['A2']);
    expect((await world.plan(renamed)).map((c) => c.action)).toEqual(['no-op']);
  });

  test('a moved block moves the state entry; nothing is created or destroyed', async () => {
    world = await NotesWorld.open();
    await world.converge(notesStack({ a: { title: 'A' } }));
    const moved = parseStackDocument('s', {
      resource: { fleetform_note: { b: { title: 'A' } } },
      moved: [{ from: 'fleetform_note.a', to: 'fleetform_note.b' }],
    });
    const changes = await world.plan(moved);
    expect(changes.map((c) => [c.address, c.action, c.movedFrom])).toEqual([['fleetform_note.b', 'move', 'fleetform_note.a']]);
    await world.apply(moved, changes);
    expect(Object.keys((await world.state()).resources)).toEqual(['fleetform_note.b']);
    expect(world.store.log.filter((l) => !l.startsWith('update'))).toEqual(['create:A']);
  });

  test('destroying one object and creating another of the same name stops the plan with the move to make', async () => {
    world = await NotesWorld.open();
    await world.converge(notesStack({ a: { title: 'A' } }));
    const changes = await world.plan(notesStack({ b: { title: 'A' } }));
    const problem = byAddress(changes, 'fleetform_note.b').problems[0];
    expect(problem?.message).toContain('would destroy fleetform_note.a and create fleetform_note.b');
    expect(problem?.hint).toContain('fleetform state mv fleetform_note.a fleetform_note.b');
  });
});
