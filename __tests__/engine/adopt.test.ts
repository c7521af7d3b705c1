/**
 * Adoption's pure parts: the literals generated code holds, construct ids, and how an
 * inventory becomes declarations (what is shared, skipped, kept secret).
 */
import fc from 'fast-check';
import { planAdoption } from '../../src/engine/adopt/adoption';
import { literal, propertyKey, stringLiteral } from '../../src/engine/adopt/code-writer';
import { importsCode } from '../../src/engine/adopt/fragment-code';
import type { Inventory, InventoryFragment, InventoryMachine } from '../../src/engine/adopt/inventory';
import { ConstructIds } from '../../src/engine/adopt/names';
import { renderAdoption, summary } from '../../src/engine/adopt/render';
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
    fc.property(
      fc.array(fc.tuple(fc.string({ maxLength: 8 }), fc.constantFrom('machine', 'location', 'dataset')), { maxLength: 30 }),
      (objects) => {
        const ids = new ConstructIds();
        const taken = objects.map(([name, kind]) => ids.take(name, kind));
        expect(new Set(taken).size).toBe(taken.length);
        for (const id of taken) expect(id).toMatch(/^[A-Za-z_][A-Za-z0-9_-]*$/);
      },
    ),
    { numRuns: 300 },
  );
});

/** A machine config as fleetform writes one: its three lists always. */
const sensors = (token: string, pin: string) => ({
  services: [],
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
    fragments: [],
    datasets: [{ id: 'ds-1', name: 'boxes', organizationId: 'org', type: 'binary', typeNumber: 0 }],
    jobs: [],
    ...extra,
  };
}

describe('planAdoption', () => {
  test('machines alike in everything, secrets included, share one function and one secret variable', () => {
    const a = planAdoption(
      inventory([
        machine('m1', 'picker-1', sensors('t', '11')),
        machine('m2', 'picker-2', sensors('t', '11')),
        machine('m3', 'picker-3', sensors('other', '11')),
      ]),
      { managed: new Map() },
    );
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

  test('what another stack manages and canceled jobs are left out, each with its reason; a frame is declared in code', () => {
    const frame = {
      components: [{ name: 'cam', api: 'rdk:component:camera', model: 'acme:sensors:cam', frame: { parent: 'world' } }],
      modules: [{ type: 'registry', name: 'acme_sensors', module_id: 'acme:sensors', version: '1.2.3' }],
    };
    const a = planAdoption(
      inventory([machine('m1', 'kept', sensors('t', '1')), machine('m2', 'framed', frame), machine('m3', 'theirs', sensors('t', '1'))], {
        jobs: [job('j1', TrainingStatus.COMPLETED), job('j2', TrainingStatus.CANCELED)],
      }),
      { managed: new Map([['fleetform_machine', new Set(['m3'])]]) },
    );
    expect(a.machines.map((m) => m.name)).toEqual(['framed', 'kept']);
    expect(a.jobs.map((j) => j.job.id)).toEqual(['j1']);
    expect(renderAdoption(a, { className: 'AdoptedStack', cdk: 'cdktf' })).toContain("frame: { parent: 'world' }");
    expect(a.skipped).toEqual([
      { what: 'machine theirs (m3)', reason: 'another stack manages it' },
      { what: 'training job detector j2 (j2)', reason: 'it was canceled: nothing of it is left to manage' },
    ]);
    expect(a.imports.map((i) => i.address)).toEqual([
      'fleetform_location.top',
      'fleetform_location.inner',
      'fleetform_machine.framed',
      'fleetform_machine.kept',
      'fleetform_dataset.boxes',
      'fleetform_training_job.detector-j1',
    ]);
  });

  test("a machine's other parts are Parts inside it, each its own import; machines alike share their main config, never their parts", () => {
    const withParts = (m: InventoryMachine, partName: string, config: Record<string, unknown>): InventoryMachine => ({
      ...m,
      parts: [...m.parts, { id: `${m.id}-p`, name: partName, machineId: m.id, locationId: m.locationId, mainPart: false, config }],
    });
    const arm = { ...sensors('arm-secret', '7'), network: { bind_address: ':8081' } };
    const a = planAdoption(
      inventory([
        withParts(machine('m1', 'picker-1', sensors('t', '11')), 'arm controller', arm),
        withParts(machine('m2', 'picker-2', sensors('t', '11')), 'cam', {
          components: [{ name: 'c', api: 'rdk:component:camera', model: 'fake' }],
        }),
        withParts(machine('m3', 'picker-3', {}), 'theirs', {}),
      ]),
      { managed: new Map([['fleetform_machine_part', new Set(['m3-p'])]]) },
    );
    expect(a.blocks.map((b) => b.machines)).toEqual([['picker-1', 'picker-2']]);
    expect(a.machines.map((m) => m.parts.map((p) => [p.constructId, p.name]))).toEqual([
      [['arm-controller', 'arm controller']],
      [['cam', 'cam']],
      [],
    ]);
    expect(a.imports.filter((i) => i.address.startsWith('fleetform_machine_part.'))).toEqual([
      { address: 'fleetform_machine_part.picker-1_arm-controller', id: 'm1-p' },
      { address: 'fleetform_machine_part.picker-2_cam', id: 'm2-p' },
    ]);
    expect(a.skipped).toEqual([{ what: 'part theirs (m3-p) of machine picker-3', reason: 'another stack manages it' }]);
    expect(a.untouched).toEqual([]);
    expect(a.secrets.map((s) => [s.variable, s.machine])).toContainEqual([
      'PICKER_1_ARM_CONTROLLER_ACME_SENSORS_API_TOKEN',
      'picker-1 (part arm controller)',
    ]);
    const code = renderAdoption(a, { className: 'AdoptedStack', cdk: 'cdktf' });
    expect(code).toContain("const picker1 = pickerConfig(new Machine(this, 'picker-1'");
    expect(code).toContain("new Part(picker1, 'arm-controller', { name: 'arm controller', network: { bind_address: ':8081' } });");
    expect(code).toMatch(
      /new Module\(armController, 'acme_sensors', \{[^}]*sensitiveEnv: \{ API_TOKEN: Secret\.fromEnv\('PICKER_1_ARM_CONTROLLER_ACME_SENSORS_API_TOKEN'\) \}/,
    );
    expect(code).not.toContain('arm-secret');
    expect(code).toMatch(/^import \{ [^}]*\bPart\b[^}]* \} from 'fleetform';$/m);
  });

  test("a part's certain failures are acknowledged on its Part, as the main part's on its Machine", () => {
    const broken = {
      components: [{ name: 'gripper', api: 'rdk:component:gripper', model: 'acme:gripz:two' }],
      modules: [{ type: 'registry', name: 'acme_grip', module_id: 'acme:grip', version: '~2' }],
    };
    const m = machine('m1', 'picker', {});
    const a = planAdoption(
      inventory([
        {
          ...m,
          parts: [...m.parts, { id: 'm1-p', name: 'arm', machineId: 'm1', locationId: m.locationId, mainPart: false, config: broken }],
        },
      ]),
      { managed: new Map() },
    );
    expect(a.machines[0]?.acknowledged).toEqual([]);
    expect(a.machines[0]?.parts[0]?.acknowledged.map((x) => [x.code, x.path])).toEqual([
      ['model-module-mismatch', 'components.gripper.model'],
      ['module-version', 'modules.acme_grip.version'],
    ]);
    const code = renderAdoption(a, { className: 'AdoptedStack', cdk: 'cdktf' });
    expect(code).toMatch(
      /new Part\(picker, 'arm', \{[^;]*acknowledged: \[\s*\{\s*code: 'model-module-mismatch',\s*path: 'components\.gripper\.model'/,
    );
    expect(code).toContain("code: 'module-version'");
  });

  test('code for CDK Terrain imports its classes from cdktn and fleetform/cdktn', () => {
    const a = planAdoption(inventory([machine('m1', 'rover', sensors('t', '1'))]), { managed: new Map() });
    const code = renderAdoption(a, { className: 'AdoptedStack', cdk: 'cdktn' });
    expect(code).toContain("import { TerraformStack } from 'cdktn';");
    expect(code).toMatch(/^import \{ [^}]+ \} from 'fleetform\/cdktn';$/m);
    expect(code).not.toContain("'cdktf'");
  });

  test('a machine importing a fragment by a bare id imports it as code does, following its latest revision', () => {
    const a = planAdoption(
      inventory([machine('m1', 'bare', { ...sensors('t', '1'), fragments: ['f1'] })], {
        fragments: [fragment('f1', 'kit', { components: [board('b', {})], modules: [sensorsModule] })],
      }),
      { managed: new Map() },
    );
    expect(a.skipped).toEqual([]);
    expect(a.machines.map((m) => m.name)).toEqual(['bare']);
    const code = renderAdoption(a, { className: 'AdoptedStack', cdk: 'cdktf' });
    // The bare id is kept in the form written.
    expect(code).toMatch(/bare\.useFragment\(kit, \{ bareId: true \}\);/);
  });
});

const board = (name: string, attributes: Record<string, unknown>) => ({
  name,
  api: 'rdk:component:board',
  model: 'acme:sensors:pi-board',
  attributes,
  depends_on: [],
});
const sensorsModule = { type: 'registry', name: 'acme_sensors', module_id: 'acme:sensors', version: '~1.2' };

function fragment(
  id: string,
  name: string,
  config: Record<string, unknown>,
  tags: { tag: string; revision: string }[] = [],
  visibility: 'private' | 'public' = 'private',
): InventoryFragment {
  return {
    fragment: {
      id,
      name,
      organizationId: 'org',
      organizationName: 'org',
      config,
      visibility,
      revision: '2',
      machineCount: 0,
      organizationCount: 0,
    },
    tags,
  };
}

describe('fragments', () => {
  const inner = fragment('f-inner', 'inner', {
    modules: [sensorsModule],
    components: [board('board-1', { pin: { $variable: { name: 'pin' } }, keep: { $variable: { name: 'x', default: 1 } } })],
  });
  const outer = fragment(
    'f-outer',
    'outer',
    {
      fragments: [{ id: 'f-inner', version: '1', variables: { pin: '13' } }],
      fragment_mods: [{ fragment_id: 'f-inner', mods: [{ $set: { 'components.board-1.attributes.rate': 5 } }] }],
    },
    [{ tag: 'stable', revision: '1' }],
    'public',
  );
  const importer = machine('m1', 'rover', {
    fragments: [{ id: 'f-outer', version: 'stable', prefix: 'front' }, { id: 'f-public-elsewhere' }],
    fragment_mods: [{ fragment_id: 'f-outer', mods: [{ $unset: { 'components.front-board-1.attributes.keep': 0 } }] }],
  });

  test('a Fragment per fragment, nested ones first, a FragmentTag per tag, and useFragment with every option on machines and fragments', () => {
    const a = planAdoption(inventory([importer], { fragments: [outer, inner] }), { managed: new Map() });
    expect(a.fragments.map((f) => f.constructId)).toEqual(['inner-fragment', 'outer']);
    expect(a.imports.map((i) => [i.address, i.id])).toEqual([
      ['fleetform_location.top', 'loc-top'],
      ['fleetform_location.inner', 'loc-in'],
      ['fleetform_fragment.inner-fragment', 'f-inner'],
      ['fleetform_fragment.outer', 'f-outer'],
      ['fleetform_fragment_tag.outer-stable', 'f-outer/stable'],
      ['fleetform_machine.rover', 'm1'],
      ['fleetform_dataset.boxes', 'ds-1'],
    ]);
    const code = renderAdoption(a, { className: 'AdoptedStack', cdk: 'cdktf' });
    expect(code).toMatch(/^import \{ [^}]*\bFragment, FragmentTag\b[^}]* \} from 'fleetform';$/m);
    // Each config holds exactly the lists it has: the inner fragment no services, the outer one and the machine none.
    expect(code).toContain(
      "const innerFragment = new Fragment(this, 'inner-fragment', { name: 'inner', emptyLists: ['components', 'modules'] });",
    );
    // A placeholder as `variable` writes it becomes the call; any other object stays as it is.
    expect(code).toContain("attributes: { pin: innerFragment.variable('pin'), keep: { $variable: { name: 'x', default: 1 } } }");
    expect(code).toContain("const outer = new Fragment(this, 'outer', { visibility: 'public', emptyLists: [] });");
    expect(code).toContain('outer.useFragment(innerFragment, {');
    expect(code).toContain("mods: [{ $set: { 'components.board-1.attributes.rate': 5 } }]");
    expect(code).toContain("new FragmentTag(this, 'outer-stable', { fragment: outer, tag: 'stable', revision: '1' });");
    expect(code).toContain("const rover = new Machine(this, 'rover', { location: top, emptyLists: [] });");
    expect(code).toContain("rover.useFragment('f-public-elsewhere');");
    expect(code).toMatch(
      /rover\.useFragment\(outer, \{\n\s+version: 'stable',\n\s+prefix: 'front',\n\s+mods: \[\{ \$unset: \{ 'components\.front-board-1\.attributes\.keep': 0 \} \}\],\n\s+\}\);/,
    );
    const order = [
      "new Fragment(this, 'inner-fragment'",
      "new Fragment(this, 'outer'",
      'new FragmentTag(',
      "new Machine(this, 'rover'",
    ].map((t) => code.indexOf(t));
    expect(order).toEqual([...order].sort((x, y) => x - y));
    expect(summary(a)).toBe('2 locations, 1 machine, 1 dataset, 0 training jobs, 2 fragments, 1 fragment tag');
  });

  test('with --terraform, fragments and tags import from their ids too', () => {
    const a = planAdoption(inventory([], { fragments: [outer, inner] }), { managed: new Map() });
    const code = renderAdoption(a, { className: 'AdoptedStack', cdk: 'cdktf', terraformImports: true });
    expect(code).toContain("innerFragment.importFrom('f-inner');");
    expect(code).toContain("outer.importFrom('f-outer');");
    expect(code).toMatch(/const outerStable = new FragmentTag\(/);
    expect(code).toContain("outerStable.importFrom('f-outer/stable');");
  });

  test('a fragment code cannot declare is left out with its tags and importers, each named; one another stack manages is imported by id', () => {
    const networked = fragment(
      'f-net',
      'networked',
      { components: [board('b', {})], modules: [{ ...sensorsModule, env: { API_TOKEN: 'x' } }] },
      [{ tag: 'stable', revision: '1' }],
    );
    const importsNetworked = fragment('f-top', 'top-level', { fragments: [{ id: 'f-net' }] });
    const secretive = fragment('f-sec', 'secretive', { modules: [{ ...sensorsModule, env: { API_TOKEN: 'x' } }] });
    const a = planAdoption(
      inventory(
        [
          machine('m1', 'uses-net', { fragments: [{ id: 'f-top' }] }),
          machine('m2', 'uses-theirs', { fragments: [{ id: 'f-theirs', version: '4' }] }),
        ],
        {
          fragments: [networked, importsNetworked, secretive, fragment('f-theirs', 'theirs', {})],
        },
      ),
      { managed: new Map([['fleetform_fragment', new Set(['f-theirs'])]]) },
    );
    expect(a.fragments).toEqual([]);
    expect(a.skipped).toEqual([
      {
        what: 'fragment networked (f-net)',
        reason: 'module acme_sensors has a secret env entry API_TOKEN, which code does not write into a fragment',
      },
      { what: 'tag stable of fragment networked', reason: 'its fragment is left out' },
      {
        what: 'fragment secretive (f-sec)',
        reason: 'module acme_sensors has a secret env entry API_TOKEN, which code does not write into a fragment',
      },
      { what: 'fragment theirs (f-theirs)', reason: 'another stack manages it' },
      { what: 'fragment top-level (f-top)', reason: 'it imports fragment networked (f-net), which is left out' },
      { what: 'machine uses-net (m1)', reason: 'it imports fragment top-level (f-top), which is left out' },
    ]);
    expect(a.machines.map((m) => [m.name, m.imports])).toEqual([
      ['uses-theirs', [{ fragment: { id: 'f-theirs' }, label: 'theirs', version: '4' }]],
    ]);
  });

  test('an import variable whose name looks secret is read from the environment on a machine, and leaves a fragment out', () => {
    const tokenPassing = fragment('f-pass', 'passes-token', { fragments: [{ id: 'f-inner', variables: { pin: '1', API_TOKEN: 'abc' } }] });
    const a = planAdoption(
      inventory(
        [machine('m1', 'rover', { fragments: [{ id: 'f-inner', prefix: 'l', variables: { pin: '1', api_token: 'abc', retries: 3 } }] })],
        { fragments: [inner, tokenPassing] },
      ),
      { managed: new Map() },
    );
    expect(a.skipped).toEqual([
      {
        what: 'fragment passes-token (f-pass)',
        reason: 'its import of fragment f-inner sets variable API_TOKEN, which looks secret: code does not write it into a fragment',
      },
    ]);
    expect(a.secrets).toEqual([
      { variable: 'ROVER_INNER_L_API_TOKEN', module: '', key: 'api_token', value: 'abc', machine: 'rover', fragment: 'inner' },
    ]);
    const code = renderAdoption(a, { className: 'AdoptedStack', cdk: 'cdktf' });
    expect(code).not.toContain("'abc'");
    expect(code).toContain("variables: { pin: '1', retries: 3, api_token: Secret.fromEnv('ROVER_INNER_L_API_TOKEN') },");
    expect(code).not.toContain('function secret(');
  });

  test('a machine whose own resources use a module its fragment brings is adopted, as a Machine importing fragments is declared', () => {
    const ownSensor = {
      name: 'probe',
      api: 'rdk:component:sensor',
      model: 'acme:sensors:hc-sr04',
      attributes: {},
      depends_on: ['board-1'],
    };
    const a = planAdoption(
      inventory(
        [
          machine('m1', 'rover', { components: [ownSensor], fragments: [{ id: 'f-inner', variables: { pin: '3' } }] }),
          machine('m2', 'alone', { components: [ownSensor] }),
        ],
        { fragments: [inner] },
      ),
      { managed: new Map() },
    );
    // A model no module provides and a dependency on nothing fail that resource at run time: the machine is adopted as it is.
    expect(a.machines.map((m) => m.name)).toEqual(['alone', 'rover']);
    expect(a.skipped).toEqual([]);
    const code = renderAdoption(a, { className: 'AdoptedStack', cdk: 'cdktf' });
    expect(code).toMatch(
      /new Component\(machine, 'probe', \{\n\s+api: 'rdk:component:sensor',\n\s+model: 'acme:sensors:hc-sr04',\n\s+attributes: \{\},\n\s+dependsOn: \['board-1'\],/,
    );
  });

  test("a machine's certain failures are judged on its config resolved with the organization's fragments; an import not among them leaves them to plan", () => {
    const sensor = (model: string, dependsOn: string[] = []) => ({
      name: 'probe',
      api: 'rdk:component:sensor',
      model,
      depends_on: dependsOn,
    });
    const a = planAdoption(
      inventory(
        [
          machine('m1', 'fine', {
            components: [sensor('acme:sensors:hc-sr04', ['board-1'])],
            fragments: [{ id: 'f-inner', variables: { pin: '3' } }],
          }),
          machine('m2', 'typo', { components: [sensor('acme:sensorz:hc-sr04')], fragments: [{ id: 'f-inner', variables: { pin: '3' } }] }),
          machine('m3', 'elsewhere', { components: [sensor('acme:sensorz:hc-sr04')], fragments: [{ id: 'public-fragment' }] }),
        ],
        { fragments: [inner] },
      ),
      { managed: new Map() },
    );
    const acks = Object.fromEntries(a.machines.map((m) => [m.name, m.acknowledged.map((x) => [x.code, x.path])]));
    expect(acks).toEqual({ fine: [], typo: [['model-module-mismatch', 'components.probe.model']], elsewhere: [] });
  });

  test('a second fragment of a name is left out: a stack declares one fragment per name', () => {
    const a = planAdoption(inventory([], { fragments: [fragment('f1', 'kit', {}), fragment('f2', 'kit', {})] }), { managed: new Map() });
    expect(a.fragments.map((f) => f.id)).toEqual(['f1']);
    expect(a.skipped).toEqual([
      { what: 'fragment kit (f2)', reason: 'fragment kit (f1) has its name, and fleetform declares one fragment per name' },
    ]);
  });

  test('fragments importing each other in a cycle are left out: code declares a fragment after those it imports', () => {
    const a = planAdoption(
      inventory([], {
        fragments: [
          fragment('fa', 'a', { fragments: [{ id: 'fb' }] }),
          fragment('fb', 'b', { fragments: [{ id: 'fa' }] }),
          fragment('fc', 'c', { fragments: [{ id: 'fa' }] }),
        ],
      }),
      { managed: new Map() },
    );
    expect(a.fragments).toEqual([]);
    expect(a.skipped.map((s) => s.what)).toEqual(['fragment a (fa)', 'fragment b (fb)', 'fragment c (fc)']);
    expect(a.skipped[2]?.reason).toBe('it imports fragment a (fa), which is left out');
  });

  test('imports code cannot write back exactly are refused with the reason', () => {
    expect(
      importsCode({
        fragments: [{ id: 'a' }, { id: 'b' }],
        fragment_mods: [
          { fragment_id: 'b', mods: [{ $set: { x: 1 } }] },
          { fragment_id: 'a', mods: [{ $set: { x: 1 } }] },
        ],
      }),
    ).toEqual({
      ok: false,
      reason: 'fragment_mods in another order than the imports they modify',
    });
    expect(importsCode({ fragments: [{ id: 'a' }], fragment_mods: [{ fragment_id: 'a', mods: [{ $rename: { x: 'y' } }] }] })).toMatchObject(
      { ok: false, reason: 'a mod of fragment a other than $set and $unset of paths' },
    );
    expect(importsCode({ fragments: [{ id: 'a', weight: 2 }] })).toMatchObject({
      ok: false,
      reason: 'fragments entry 0 has keys fleetform does not declare: weight',
    });
    expect(importsCode({ fragment_mods: [{ fragment_id: 'z', mods: [{ $set: {} }] }] })).toMatchObject({
      ok: false,
      reason: 'fragment_mods of fragment z, which it does not import',
    });
    // A fragment imported twice carries its mods on its first import, as code synthesizes them.
    expect(
      importsCode({
        fragments: [
          { id: 'a', prefix: 'l' },
          { id: 'a', prefix: 'r' },
        ],
        fragment_mods: [{ fragment_id: 'a', mods: [{ $set: { x: 1 } }] }],
      }),
    ).toEqual({
      ok: true,
      imports: [
        { fragmentId: 'a', prefix: 'l', mods: [{ $set: { x: 1 } }] },
        { fragmentId: 'a', prefix: 'r' },
      ],
    });
  });
});
