import { renderPlanText } from '../../src/engine/render/text';
import type { Plan, ResourceChange } from '../../src/engine/plan-model';

function created(stack: string, address: string, problems: ResourceChange['problems'] = []): ResourceChange {
  return {
    stack,
    type: address.split('.')[0] ?? '',
    address,
    action: 'create',
    before: null,
    after: { name: address },
    changes: [],
    drift: [],
    vanished: false,
    replaceReasons: [],
    replaceOrder: 'delete-first',
    notes: [],
    problems,
    facts: {},
    sensitivePaths: [],
    dependsOn: [],
    observedVersion: null,
  };
}

function planOf(changes: ResourceChange[]): Plan {
  const stacks = [...new Set(changes.map((c) => c.stack))].map((name) => ({
    name,
    lineage: 'l',
    serial: 1,
    organizationId: 'o',
    locationId: 'loc',
  }));
  return { formatVersion: '1.0', createdAt: '2026-01-01T00:00:00.000Z', destroy: false, stacks, changes };
}

test('the actions of several stacks come under a header per stack; one stack has none', () => {
  const text = renderPlanText(planOf([created('training', 'fleetform_dataset.a'), created('warehouse', 'fleetform_machine.m')]), {
    color: false,
  });
  expect(text.indexOf('Stack training:')).toBeGreaterThan(-1);
  expect(text.indexOf('Stack training:')).toBeLessThan(text.indexOf('fleetform_dataset.a will be created'));
  expect(text.indexOf('Stack warehouse:')).toBeLessThan(text.indexOf('fleetform_machine.m will be created'));
  expect(text.indexOf('fleetform_dataset.a will be created')).toBeLessThan(text.indexOf('Stack warehouse:'));
  expect(renderPlanText(planOf([created('training', 'fleetform_dataset.a')]), { color: false })).not.toContain('Stack ');
});

test('a plan with an error says it is refused in its summary, not as a plan to apply', () => {
  const bad = created('s', 'fleetform_machine.m', [{ path: 'name', message: 'bad', hint: 'fix it' }]);
  const text = renderPlanText(planOf([bad, created('s', 'fleetform_dataset.d')]), { color: false });
  expect(text).toContain('Error: fleetform_machine.m.name: bad');
  expect(text.trimEnd().split('\n').at(-1)).toBe(
    'Plan refused: 1 error above; nothing will be changed until it is fixed (the plan as it stands: 2 to add, 0 to change, 0 to destroy).',
  );
  expect(text).not.toMatch(/^Plan: /m);
  expect(renderPlanText(planOf([created('s', 'fleetform_dataset.d')]), { color: false })).toMatch(
    /^Plan: 1 to add, 0 to change, 0 to destroy\.$/m,
  );
});
