import { renderPlanJson } from '../../src/engine/render/json';
import { renderPlanMarkdown } from '../../src/engine/render/markdown';
import { renderPlanText } from '../../src/engine/render/text';
import { maskPaths } from '../../src/engine/mask';
import type { Plan, ResourceChange } from '../../src/engine/plan-model';
import { diffJson } from '../../src/engine/diff';

const secretPath = 'config.modules.m.env.API_TOKEN';
function change(partial: Partial<ResourceChange> & Pick<ResourceChange, 'address' | 'action'>): ResourceChange {
  return {
    stack: 's',
    type: partial.address.split('.')[0] ?? '',
    before: null,
    after: null,
    changes: [],
    drift: [],
    vanished: false,
    replaceReasons: [],
    replaceOrder: 'delete-first',
    notes: [],
    problems: [],
    facts: {},
    sensitivePaths: [],
    dependsOn: [],
    observedVersion: null,
    ...partial,
  };
}

const before = maskPaths(
  { name: 'm1', config: { modules: { m: { env: { API_TOKEN: 'old-secret' } } }, components: { s1: { attributes: { timeout_ms: 150 } } } } },
  [secretPath],
  'salt',
);
const after = maskPaths(
  { name: 'm1', config: { modules: { m: { env: { API_TOKEN: 'new-secret' } } }, components: { s1: { attributes: { timeout_ms: 200 } } } } },
  [secretPath],
  'salt',
);
const plan: Plan = {
  formatVersion: '1.0',
  createdAt: '2026-01-01T00:00:00.000Z',
  destroy: false,
  stacks: [{ name: 's', lineage: 'l', serial: 3, organizationId: 'o', locationId: 'loc' }],
  changes: [
    change({
      address: 'fleetform_machine.m1',
      action: 'update',
      before,
      after,
      changes: diffJson(before, after),
      sensitivePaths: [secretPath],
      drift: [{ path: 'config.components.s1.attributes.timeout_ms', kind: 'change', before: 150, after: 170 }],
    }),
    change({
      address: 'fleetform_dataset.d',
      action: 'create',
      after: { name: 'd', organization_id: 'o' },
      changes: diffJson(undefined, { name: 'd' }),
    }),
    change({ address: 'fleetform_training_job.old', action: 'delete', before: { model_name: 'x' }, replaceOrder: 'create-first' }),
  ],
};

describe('plan renderers', () => {
  test('text: Terraform symbols, only the changed attribute, drift, summary, secrets hidden, no colour', () => {
    const text = renderPlanText(plan, { color: false });
    expect(text).toContain('~ config.components.s1.attributes.timeout_ms = 150 -> 200');
    expect(text).toContain('~ config.modules.m.env.API_TOKEN = (sensitive) -> (sensitive)');
    expect(text).toContain('Objects have changed outside of fleetform');
    expect(text).toContain('+ resource "fleetform_dataset" "d"');
    expect(text).toContain('- resource "fleetform_training_job" "old"');
    expect(text).toContain('Plan: 1 to add, 1 to change, 1 to destroy.');
    // eslint-disable-next-line no-control-regex -- ESC starts the ANSI colour codes that must be absent
    expect(text).not.toMatch(/secret|sha256|\u001b\[/);
  });

  test('text with colour uses ANSI codes', () => {
    // eslint-disable-next-line no-control-regex -- ESC starts the ANSI colour codes looked for
    expect(renderPlanText(plan, { color: true })).toMatch(/\u001b\[3[123]m/);
  });

  test('json: versioned schema with actions, attribute changes and drift, secrets as (sensitive)', () => {
    const doc = JSON.parse(renderPlanJson(plan));
    expect(doc.format_version).toBe('1.0');
    expect(doc.resource_changes.map((c: { change: { actions: string[] } }) => c.change.actions)).toEqual([
      ['update'],
      ['create'],
      ['delete'],
    ]);
    expect(doc.resource_changes[0].drift).toHaveLength(1);
    expect(doc.summary).toMatchObject({ add: 1, change: 1, destroy: 1 });
    expect(JSON.stringify(doc)).not.toMatch(/secret|sha256/);
    expect(doc.resource_changes[0].change.after.config.modules.m.env.API_TOKEN).toBe('(sensitive)');
  });

  test('markdown: summary in the open, details collapsed', () => {
    const md = renderPlanMarkdown(plan);
    expect(md).toContain('**Plan: 1 to add, 1 to change, 1 to destroy.**');
    expect(md).toContain('<details><summary>Stack <code>s</code>');
    expect(md).toContain('```diff');
    expect(md).not.toMatch(/secret|sha256/);
  });

  test('a refused plan does not read as a plan: text and markdown lead with the refusal, never "Plan: ..."', () => {
    const refused: Plan = {
      ...plan,
      changes: plan.changes.map((c, i) =>
        i === 0 ? { ...c, problems: [{ path: 'config', message: 'no such module version', hint: 'use 1.2.5' }] } : c,
      ),
    };
    const text = renderPlanText(refused, { color: false });
    expect(text).toContain('Error: fleetform_machine.m1.config: no such module version');
    expect(text).toContain('Plan refused: 1 error above; nothing will be changed until it is fixed');
    expect(text).not.toMatch(/^Plan: /m);
    const md = renderPlanMarkdown(refused);
    expect(md).toContain(':x: **Plan refused: 1 error above');
    expect(md).not.toContain('**Plan: ');
  });

  test('a note with a value shows it below the note, one line each', () => {
    const noted: Plan = {
      ...plan,
      changes: [
        change({
          address: 'fleetform_machine.m2',
          action: 'create',
          after: { name: 'm2' },
          notes: [
            { level: 'info', path: 'config', message: 'what it will run:', value: { components: { s1: { api: 'rdk:component:sensor' } } } },
          ],
        }),
      ],
    };
    const lines = renderPlanText(noted, { color: false }).split('\n');
    const at = lines.findIndex((l) => l.includes('# config: what it will run:'));
    expect(lines.slice(at + 1, at + 4)).toEqual(['      #   {', '      #     "components": {', '      #       "s1": {']);
  });
});
