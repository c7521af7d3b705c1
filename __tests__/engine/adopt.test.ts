/**
 * Adoption's pure parts: the literals generated code holds, construct ids, and how an
 * inventory becomes declarations (what is shared, skipped, kept secret).
 */
import fc from 'fast-check';
import { planAdoption } from '../../src/engine/adopt/adoption';
import { literal, propertyKey, stringLiteral } from '../../src/engine/adopt/code-writer';
import type { Inventory, InventoryMachine } from '../../src/engine/adopt/inventory';
import { machineConfigCode } from '../../src/engine/adopt/machine-code';
import { ConstructIds } from '../../src/engine/adopt/names';
import { renderAdoption } from '../../src/engine/adopt/render';
import { TrainingStatus } from '../../src/domain/training';
import type { TrainingJob } from '../../src/api/client';

/** Evaluates a generated expression (plain literals only, no free names). */
function evaluate(expression: string): unknown {
  return new Function(`"use strict"; return (${expression});`)() as unknown;
}

describe('literals', () => {
  test('any JSON value written as a literal evaluates to the same value, own keys included', () => {
    const key = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('__proto__', 'constructor', 'a b', '0', '$x'));
    const json = fc.letrec<{ v: unknown }>((tie) => ({
      v: fc.oneof(
        { depthSize: 'small' },
        fc.string(),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('v'), { maxLength: 3 }),
        fc.dictionary(key, tie('v'), { maxKeys: 3 }),
      ),
    })).v;
    fc.assert(
      fc.property(json, (value) => {
        const back = evaluate(literal(value as never));
        expect(JSON.stringify(back)).toBe(JSON.stringify(value, (_k, v: unknown) => (Object.is(v, -0) ? 0 : v)));
      }),
      { numRuns: 400 },
    );
  });

  test('a `__proto__` key is an own property, not the prototype', () => {
    expect(propertyKey('__proto__')).toBe("['__proto__']");
    const back = evaluate(literal(JSON.parse('{"__proto__": {"polluted": true}}') as never)) as Record<string, unknown>;
    expect(Object.hasOwn(back, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('text keeps `${...}` as written and escapes what a string literal cannot hold', () => {
    expect(stringLiteral("${environment.HOME}/it's")).toBe("'${environment.HOME}/it\\'s'");
    expect(evaluate(stringLiteral('a\u2028b\u0000c\\'))).toBe('a\u2028b\u0000c\\');
  });
});

test('construct ids are unique Terraform names, whatever the objects are called', () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.string({ maxLength: 8 }), fc.constantFrom('machine', 'location', 'dataset')), { maxLength: 30 }), (objects) => {
      const ids = new ConstructIds();
      const taken = objects.map(([name, kind]) => ids.take(name, kind));
      expect(new Set(taken).size).toBe(taken.length);
      for (const id of taken) expect(id).toMatch(/^[A-Za-z_][A-Za-z0-9_-]*$/);
    }),
    { numRuns: 300 },
  );
});

const sensors = (token: string, pin: string) => ({
  modules: [{ type: 'registry', name: 'acme_sensors', module_id: 'acme:sensors', version: '~1.2', env: { API_TOKEN: token } }],
  components: [{ name: 'board-1', api: 'rdk:component:board', model: 'acme:sensors:pi-board', attributes: { pin }, depends_on: [] }],
});

function machine(id: string, name: string, config: Record<string, unknown>, locationId = 'loc-top'): InventoryMachine {
  return { id, name, locationId, parts: [{ id: `part-${id}`, name: `${name}-main`, machineId: id, locationId, mainPart: true, config }] };
}

function job(id: string, status: TrainingStatus): TrainingJob {
  return {
    id,
    datasetId: 'ds-1',
    organizationId: 'org',
    modelName: 'detector',
    modelVersion: id,
    modelType: 3,
    modelFramework: 0,
    isCustomJob: false,
    registryItemId: '',
    registryItemVersion: '',
    status,
    syncedModelId: '',
    tags: [],
    arguments: {},
    containerVersion: '',
  } as TrainingJob;
}

function inventory(machines: InventoryMachine[], extra: Partial<Inventory> = {}): Inventory {
  return {
    organizationId: 'org',
    locations: [
      { id: 'loc-in', name: 'inner', parentLocationId: 'loc-top', organizationId: 'org' },
      { id: 'loc-top', name: 'top', parentLocationId: '', organizationId: 'org' },
    ],
    machines,
    datasets: [{ id: 'ds-1', name: 'boxes', organizationId: 'org' }],
    jobs: [],
    ...extra,
  };
}

describe('planAdoption', () => {
  test('machines alike in everything, secrets included, share one function and one secret variable', () => {
    const a = planAdoption(inventory([machine('m1', 'picker-1', sensors('t', '11')), machine('m2', 'picker-2', sensors('t', '11')), machine('m3', 'picker-3', sensors('other', '11'))]), { managed: new Map() });
    expect(a.blocks).toHaveLength(1);
    expect(a.blocks[0]).toMatchObject({ functionName: 'pickerConfig', machines: ['picker-1', 'picker-2'] });
    expect(a.secrets.map((s) => [s.variable, s.machine])).toEqual([
      ['PICKER_ACME_SENSORS_API_TOKEN', 'picker-1, picker-2'],
      ['PICKER_3_ACME_SENSORS_API_TOKEN', 'picker-3'],
    ]);
    const code = renderAdoption(a, { className: 'AdoptedStack', cdk: 'cdktf' });
    expect(code).not.toContain("'t'");
    expect(code).not.toContain("'other'");
    expect(code.match(/pickerConfig\(new Machine/g)).toHaveLength(2);
  });

  test('parents come before the locations inside them, and machines refer to them', () => {
    const a = planAdoption(inventory([machine('m1', 'rover', sensors('t', '1'), 'loc-in')]), { managed: new Map() });
    expect(a.locations.map((l) => [l.constructId, l.parent])).toEqual([
      ['top', undefined],
      ['inner', { construct: 'top' }],
    ]);
    expect(a.machines[0]?.location).toEqual({ construct: 'inner' });
  });

  test('what another stack manages, canceled jobs and configs code cannot declare are left out, each with its reason', () => {
    const frame = { components: [{ name: 'cam', api: 'rdk:component:camera', model: 'acme:sensors:cam', frame: { parent: 'world' } }], modules: [{ type: 'registry', name: 'acme_sensors', module_id: 'acme:sensors', version: '1.2.3' }] };
    const a = planAdoption(
      inventory([machine('m1', 'kept', sensors('t', '1')), machine('m2', 'framed', frame), machine('m3', 'theirs', sensors('t', '1'))], {
        jobs: [job('j1', TrainingStatus.COMPLETED), job('j2', TrainingStatus.CANCELED)],
      }),
      { managed: new Map([['fleetform_machine', new Set(['m3'])]]) },
    );
    expect(a.machines.map((m) => m.name)).toEqual(['kept']);
    expect(a.jobs.map((j) => j.job.id)).toEqual(['j1']);
    expect(a.skipped).toEqual([
      { what: 'machine framed (m2)', reason: 'components entry cam has keys fleetform does not declare: frame' },
      { what: 'machine theirs (m3)', reason: 'another stack manages it' },
      { what: 'training job detector j2 (j2)', reason: 'it was canceled: nothing of it is left to manage' },
    ]);
    expect(a.imports.map((i) => i.address)).toEqual(['fleetform_location.top', 'fleetform_location.inner', 'fleetform_machine.kept', 'fleetform_dataset.boxes', 'fleetform_training_job.detector-j1']);
  });

  test('code for CDK Terrain imports its classes from cdktn and fleetform/cdktn', () => {
    const a = planAdoption(inventory([machine('m1', 'rover', sensors('t', '1'))]), { managed: new Map() });
    const code = renderAdoption(a, { className: 'AdoptedStack', cdk: 'cdktn' });
    expect(code).toContain("import { TerraformStack } from 'cdktn';");
    expect(code).toMatch(/^import \{ [^}]+ \} from 'fleetform\/cdktn';$/m);
    expect(code).not.toContain("'cdktf'");
  });

  test('a machine importing fragments is left out, by name, until adoption writes fragments', () => {
    const made = machineConfigCode({ ...sensors('t', '1'), fragments: [{ id: 'f1' }] }, 'm');
    expect(made).toEqual({ ok: false, reason: 'it imports fragments (fragments), which adoption does not write yet' });
  });
});
