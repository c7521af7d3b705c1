import type { JsonObject } from '../../src/engine/json';
import type { Desired, Observation } from '../../src/engine/kind';
import { isMasked } from '../../src/engine/mask';
import { NO_LIFECYCLE } from '../../src/engine/desired/lifecycle';
import { planResourceChange, type ChangePlan } from '../../src/engine/plan/resource-core';
import type { StateEntry } from '../../src/engine/state/schema';
import { NoteStore, noteDeclaration, noteKind } from './fake-kind';

/** The one planning core both the engine's planner and the Terraform provider call, through the fake kind. */
const kind = noteKind(new NoteStore());
const key = Buffer.alloc(32, 7);
const salt = 'lineage-1';

function desired(view: JsonObject, sensitivePaths: string[] = []): Desired {
  return { view, private: {}, notes: [], problems: [], sensitivePaths };
}

function entry(attributes: JsonObject | null, sensitive: string[] = []): StateEntry {
  return {
    type: noteDeclaration.type,
    ids: { id: 'n1' },
    outputs: { id: 'n1' },
    attributes,
    dependencies: [],
    private: {},
    sensitive_paths: sensitive,
    status: 'ok',
  };
}

function changed(plan: ReturnType<typeof planResourceChange>): ChangePlan {
  if (plan.action === 'create') throw new Error('expected the plan of an existing object');
  return plan;
}

describe('planResourceChange', () => {
  test('nothing exists: a create showing the masked desired view', () => {
    const plan = planResourceChange({
      kind,
      desired: desired({ title: 'A', text: '', secret: 'hunter2' }, ['secret']),
      attributes: {},
      existing: undefined,
      observation: undefined,
      salt,
      key,
    });
    expect(plan.action).toBe('create');
    expect(isMasked(plan.after.secret)).toBe(true);
    expect(JSON.stringify(plan)).not.toContain('hunter2');
    expect(plan.changes.map((c) => c.kind)).toEqual(['add']);
  });

  test('a changed replace-forcing attribute is a replace for that reason, judged by the kind', () => {
    const plan = changed(
      planResourceChange({
        kind,
        desired: desired({ title: 'B', text: 'x' }),
        attributes: {},
        existing: entry({ title: 'A', text: 'x' }),
        observation: undefined,
        salt,
        key,
      }),
    );
    expect(plan.action).toBe('replace');
    expect(plan.replaceReasons).toEqual(['title']);
    expect(plan.judgement.notes.map((n) => n.message)).toEqual(['a new note is written']);
  });

  test('the record stands for the object when it was not read; what was read is drift against the record', () => {
    const recorded = entry({ title: 'A', text: 'one' });
    const observation: Observation = { view: { title: 'A', text: 'two' }, version: '2', facts: {} };
    const unread = changed(
      planResourceChange({
        kind,
        desired: desired({ title: 'A', text: 'one' }),
        attributes: {},
        existing: recorded,
        observation: undefined,
        salt,
        key,
      }),
    );
    expect(unread.action).toBe('no-op');
    expect(unread.drift).toEqual([]);
    const read = changed(
      planResourceChange({
        kind,
        desired: desired({ title: 'A', text: 'one' }),
        attributes: {},
        existing: recorded,
        observation,
        salt,
        key,
      }),
    );
    expect(read.action).toBe('update');
    expect(read.drift).toEqual([{ path: 'text', kind: 'change', before: 'one', after: 'two' }]);
  });

  test('ignored attributes keep what exists; a front end that found no change gets no judgement; its own replace reasons win', () => {
    const lifecycle = { ...NO_LIFECYCLE, ignoreChanges: ['title'] };
    const ignored = changed(
      planResourceChange({
        kind,
        desired: desired({ title: 'B', text: 'x' }),
        attributes: {},
        existing: entry({ title: 'A', text: 'x' }),
        observation: undefined,
        lifecycle,
        salt,
        key,
      }),
    );
    expect(ignored.action).toBe('no-op');
    expect(ignored.after.title).toBe('A');
    const quiet = changed(
      planResourceChange({
        kind,
        desired: desired({ title: 'B', text: 'x' }),
        attributes: {},
        existing: entry({ title: 'A', text: 'x' }),
        observation: undefined,
        salt,
        key,
        unchanged: true,
      }),
    );
    expect(quiet.judgement).toEqual({ problems: [], notes: [] });
    const forced = changed(
      planResourceChange({
        kind,
        desired: desired({ title: 'A', text: 'y' }),
        attributes: {},
        existing: entry({ title: 'A', text: 'x' }),
        observation: undefined,
        salt,
        key,
        forcedReplace: ['title'],
      }),
    );
    expect(forced.replaceReasons).toEqual(['title']);
    expect(forced.action).toBe('replace');
  });
});
