import { FleetformError } from '../../src/domain/errors';
import { parseStackDocument } from '../../src/engine/desired/read-stacks';
import type { JsonObject } from '../../src/engine/json';
import { byAddress, NotesWorld } from './fake-harness';

/** A stack of notes written as cdktf synthesizes it, meta-arguments included. */
function stack(notes: Record<string, JsonObject>) {
  return parseStackDocument('s', { resource: { fleetform_note: notes } });
}

function refusal(notes: Record<string, JsonObject>): FleetformError {
  try {
    stack(notes);
  } catch (err) {
    if (err instanceof FleetformError) return err;
    throw err;
  }
  throw new Error('the stack was accepted');
}

/** Meta-arguments through the engine's planner and executor, over the fake kind. */
describe('meta-arguments', () => {
  let world: NotesWorld;
  beforeEach(async () => {
    world = await NotesWorld.open('delete-first');
  });
  afterEach(() => world.close());

  test('prevent_destroy: a replace and a destroy are plan errors naming the address; removing the block from code deletes', async () => {
    const guarded = { title: 'A', lifecycle: { prevent_destroy: true } };
    await world.converge(stack({ a: guarded }));
    const replace = byAddress(await world.plan(stack({ a: { ...guarded, title: 'A2' } })), 'fleetform_note.a');
    expect(replace.action).toBe('replace');
    expect(replace.problems.map((p) => p.path)).toEqual(['lifecycle.prevent_destroy']);
    expect(replace.problems[0]?.message).toContain('fleetform_note.a has lifecycle.prevent_destroy set');
    const destroy = byAddress(await world.plan(stack({ a: guarded }), { destroy: true }), 'fleetform_note.a');
    expect(destroy.action).toBe('delete');
    expect(destroy.problems[0]?.message).toContain('would destroy it');
    // An in-place change is allowed.
    expect(byAddress(await world.plan(stack({ a: { ...guarded, text: 'more' } })), 'fleetform_note.a').problems).toEqual([]);
    // Without the resource in code, nothing protects it any more (as in Terraform).
    expect(byAddress(await world.plan(stack({})), 'fleetform_note.a')).toMatchObject({ action: 'delete', problems: [] });
  });

  test("create_before_destroy overrides the kind's order, in the plan and in the calls apply makes", async () => {
    await world.converge(stack({ a: { title: 'A' } }));
    const changes = await world.plan(stack({ a: { title: 'B', lifecycle: { create_before_destroy: true } } }));
    expect(byAddress(changes, 'fleetform_note.a')).toMatchObject({ action: 'replace', replaceOrder: 'create-first' });
    world.store.log.length = 0;
    expect((await world.apply(stack({ a: { title: 'B', lifecycle: { create_before_destroy: true } } }), changes)).failed).toEqual([]);
    expect(world.store.log.filter((l) => !l.startsWith('observe'))).toEqual(['create:B', 'delete:A']);

    const back = stack({ a: { title: 'C', lifecycle: { create_before_destroy: false } } });
    const other = await NotesWorld.open('create-first');
    try {
      await other.converge(stack({ a: { title: 'B' } }));
      const planned = await other.plan(back);
      expect(byAddress(planned, 'fleetform_note.a').replaceOrder).toBe('delete-first');
      other.store.log.length = 0;
      await other.apply(back, planned);
      expect(other.store.log.filter((l) => !l.startsWith('observe'))).toEqual(['delete:B', 'create:C']);
    } finally {
      await other.close();
    }
  });

  test('ignore_changes: an ignored attribute keeps what the service holds, on update and after drift; "all" ignores every one', async () => {
    const ignoring = { title: 'A', text: 'from code', lifecycle: { ignore_changes: ['text'] } };
    await world.converge(stack({ a: ignoring }));
    expect(world.store.notes.size).toBe(1);
    const [id] = [...world.store.notes.keys()];
    const note = world.store.notes.get(id as string);
    world.store.notes.set(id as string, { ...(note as NonNullable<typeof note>), text: 'edited by hand', version: 2 });
    const changes = await world.plan(stack({ a: { ...ignoring, text: 'changed in code', secret: 's1' } }));
    const a = byAddress(changes, 'fleetform_note.a');
    expect(a.action).toBe('update');
    expect(a.changes.map((c) => c.path)).toEqual(['secret']);
    await world.apply(stack({ a: { ...ignoring, text: 'changed in code', secret: 's1' } }), changes);
    expect(world.store.notes.get(id as string)?.text).toBe('edited by hand');

    const all = { title: 'A', text: 'anything', lifecycle: { ignore_changes: 'all' } };
    expect(byAddress(await world.plan(stack({ a: all })), 'fleetform_note.a').action).toBe('no-op');
    // A create still uses what the code says.
    await world.converge(stack({ a: all, b: { title: 'B', text: 'new', lifecycle: { ignore_changes: 'all' } } }));
    expect([...world.store.notes.values()].find((n) => n.title === 'B')?.text).toBe('new');
  });

  test('ignore_changes naming no attribute of the kind is a plan problem naming it', async () => {
    const changes = await world.plan(stack({ a: { title: 'A', lifecycle: { ignore_changes: ['txet'] } } }));
    expect(byAddress(changes, 'fleetform_note.a').problems).toEqual([
      expect.objectContaining({
        path: 'lifecycle.ignore_changes',
        message: 'ignore_changes names txet, but the resource has no attribute txet',
      }),
    ]);
  });

  test('replace_triggered_by: a change of the named resource (or attribute) replaces this one', async () => {
    const triggered = { title: 'B', lifecycle: { replace_triggered_by: ['${fleetform_note.a}'] } };
    const byText = { title: 'C', lifecycle: { replace_triggered_by: ['fleetform_note.a.title'] } };
    await world.converge(stack({ a: { title: 'A' }, b: triggered, c: byText }));
    expect((await world.plan(stack({ a: { title: 'A' }, b: triggered, c: byText }))).map((c) => c.action)).toEqual([
      'no-op',
      'no-op',
      'no-op',
    ]);
    const changes = await world.plan(stack({ a: { title: 'A', text: 'new' }, b: triggered, c: byText }));
    expect(byAddress(changes, 'fleetform_note.a').action).toBe('update');
    expect(byAddress(changes, 'fleetform_note.b')).toMatchObject({
      action: 'replace',
      replaceReasons: ['replace_triggered_by fleetform_note.a (update)'],
    });
    expect(byAddress(changes, 'fleetform_note.c').action).toBe('no-op');
    expect(byAddress(changes, 'fleetform_note.b').dependsOn).toEqual(['fleetform_note.a']);
    const beforeIds = [...world.store.notes.values()].filter((n) => n.title === 'B').map((n) => n.id);
    await world.apply(stack({ a: { title: 'A', text: 'new' }, b: triggered, c: byText }), changes);
    const afterIds = [...world.store.notes.values()].filter((n) => n.title === 'B').map((n) => n.id);
    expect(afterIds).toHaveLength(1);
    expect(afterIds).not.toEqual(beforeIds);
  });

  test('count and for_each: one instance per index or key, addressed as Terraform does, with count.index / each.* resolved', async () => {
    const doc = stack({
      n: { count: 2, title: 'n-${count.index}' },
      s: { for_each: '${toset(["p", "q"])}', title: '${each.value}' },
      m: {
        for_each: { x: { t: 'one' }, y: { t: 'two' } },
        title: '${each.value.t}',
        text: 'key ${each.key}',
        parent_id: '${fleetform_note.n[1].id}',
      },
    });
    expect(doc.resources.map((r) => r.address).sort()).toEqual([
      'fleetform_note.m["x"]',
      'fleetform_note.m["y"]',
      'fleetform_note.n[0]',
      'fleetform_note.n[1]',
      'fleetform_note.s["p"]',
      'fleetform_note.s["q"]',
    ]);
    await world.converge(doc);
    expect([...world.store.notes.values()].map((n) => n.title).sort()).toEqual(['n-0', 'n-1', 'one', 'p', 'q', 'two']);
    const state = await world.state();
    const parent = state.resources['fleetform_note.n[1]']?.ids.id;
    expect([...world.store.notes.values()].find((n) => n.title === 'one')).toMatchObject({ text: 'key x', parentId: parent });
    // Fewer instances: the dropped one is deleted, the rest unchanged.
    const fewer = await world.plan(stack({ n: { count: 1, title: 'n-${count.index}' } }));
    expect(byAddress(fewer, 'fleetform_note.n[0]').action).toBe('no-op');
    expect(byAddress(fewer, 'fleetform_note.n[1]').action).toBe('delete');
  });

  test('${count.index} inside a string is the index, as Terraform evaluates it; an escaped $${count.index} is the literal text', async () => {
    const doc = stack({ rows: { count: 2, title: 'rows-${count.index}', text: 'cost $${count.index} at ${count.index}' } });
    expect(doc.resources.map((r) => [r.address, r.attributes.title, r.attributes.text])).toEqual([
      ['fleetform_note.rows[0]', 'rows-0', 'cost $${count.index} at 0'],
      ['fleetform_note.rows[1]', 'rows-1', 'cost $${count.index} at 1'],
    ]);
    await world.converge(doc);
    expect([...world.store.notes.values()].map((n) => `${n.title}: ${n.text ?? ''}`).sort()).toEqual([
      'rows-0: cost ${count.index} at 0',
      'rows-1: cost ${count.index} at 1',
    ]);
    // Escaped, it means nothing without count either.
    expect(() => stack({ a: { title: 'a $${count.index}' } })).not.toThrow();
  });

  test('a Terraform expression the engine does not evaluate is refused by name, never sent as written', () => {
    expect(refusal({ a: { title: '${var.region}' } })).toMatchObject({
      message: expect.stringContaining("holds ${var.region}, a Terraform expression fleetform's engine does not evaluate"),
      path: expect.stringContaining('fleetform_note.a.title'),
    });
    expect(refusal({ a: { title: 'x-${upper("a")}' } }).message).toContain('holds ${upper("a")}');
    expect(refusal({ a: { title: 'A', text: '%{ if true }yes%{ endif }' } }).message).toContain('holds %{ if true }');
    expect(refusal({ n: { count: 2, title: 'n-${count.index + 1}' } }).message).toContain(
      "uses count or each in an expression fleetform's engine does not evaluate",
    );
    expect(refusal({ a: { title: 'A', text: '${fleetform_note.b.outputs["x"]}' }, b: { title: 'B' } }).message).toContain(
      'holds ${fleetform_note.b.outputs["x"]}',
    );
    // What it evaluates, and placeholders of older synthesized output (read literally), pass.
    expect(() =>
      stack({
        a: { title: 'A', text: '$${var.x} %%{ if } ${environment.HOME} ${packages.ml_model.box}' },
        b: { title: 'B', parent_id: '${fleetform_note.a.id}' },
      }),
    ).not.toThrow();
  });

  test('instances that would be one object on the service stop the plan, naming each other', async () => {
    const changes = await world.plan(stack({ n: { count: 2, title: 'same' } }));
    expect(byAddress(changes, 'fleetform_note.n[0]').problems[0]?.message).toBe(
      'fleetform_note.n[0] and fleetform_note.n[1] would both be note same on the service',
    );
    expect(byAddress(changes, 'fleetform_note.n[1]').problems).toHaveLength(1);
  });

  test('depends_on a resource with count waits for every instance', () => {
    const doc = stack({ n: { count: 2, title: 'n-${count.index}' }, after: { title: 'last', depends_on: ['fleetform_note.n'] } });
    expect(doc.resources.find((r) => r.address === 'fleetform_note.after')?.dependsOn).toEqual([
      'fleetform_note.n[0]',
      'fleetform_note.n[1]',
    ]);
  });

  test('what the engine does not carry out is refused by name, before any call', () => {
    expect(refusal({ a: { title: 'A', provisioner: [{ 'local-exec': { command: 'true' } }] } })).toMatchObject({
      path: expect.stringContaining('fleetform_note.a.provisioner'),
    });
    expect(refusal({ a: { title: 'A', connection: { host: 'x' } } }).message).toContain('connection is not carried out');
    expect(refusal({ a: { title: 'A', provider: 'fleetform.west' } }).message).toContain('no aliases');
    expect(() => stack({ a: { title: 'A', provider: 'fleetform' } })).not.toThrow();
    expect(refusal({ a: { title: 'A', count: '${var.n}' } }).path).toContain('fleetform_note.a.count');
    expect(refusal({ a: { title: 'A', for_each: '${var.names}' } }).message).toContain('for_each');
    expect(refusal({ a: { title: '${each.value}' } }).message).toContain('each.value used in a resource without for_each');
    expect(refusal({ a: { title: 'A', lifecycle: { ignore_changes: ['text + 1'] } } }).message).toContain(
      'not an attribute name or a path into one',
    );
    expect(refusal({ a: { title: 'A', lifecycle: { precondition: [{}] } } }).message).toContain(
      'lifecycle argument precondition is not implemented',
    );
    expect(refusal({ n: { count: 2, title: 'x${count.index}' }, b: { title: 'B', parent_id: '${fleetform_note.n.id}' } }).hint).toContain(
      'fleetform_note.n[0].id',
    );
  });
});
