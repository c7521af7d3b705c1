import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findReferences, resolveReferences } from '../../src/engine/desired/references';
import { parseStackDocument } from '../../src/engine/desired/read-stacks';
import { diffJson } from '../../src/engine/diff';
import { runGraph } from '../../src/engine/graph';
import { unknownValue } from '../../src/engine/json';
import { maskPaths, isMasked } from '../../src/engine/mask';
import { LocalStateBackend } from '../../src/engine/state/local-backend';
import { matchesPlanned } from '../../src/engine/apply/executor';

describe('diffJson', () => {
  test.each([
    ['changed nested key', { a: { b: 1, c: 2 } }, { a: { b: 1, c: 3 } }, [{ path: 'a.c', kind: 'change', before: 2, after: 3 }]],
    ['added key', { a: {} }, { a: { x: 'y' } }, [{ path: 'a.x', kind: 'add', after: 'y' }]],
    ['removed key', { a: { x: 1 } }, { a: {} }, [{ path: 'a.x', kind: 'remove', before: 1 }]],
    ['name with dash', { m: { 'sensor-1': 1 } }, { m: { 'sensor-1': 2 } }, [{ path: 'm.sensor-1', kind: 'change', before: 1, after: 2 }]],
    [
      'scalar array as a whole',
      { t: ['a', 'b'] },
      { t: ['b', 'a'] },
      [{ path: 't', kind: 'change', before: ['a', 'b'], after: ['b', 'a'] }],
    ],
    ['object array element-wise', { l: [{ a: 1 }] }, { l: [{ a: 2 }] }, [{ path: 'l[0].a', kind: 'change', before: 1, after: 2 }]],
    ['equal', { a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }, []],
  ])('%s', (_name, before, after, expected) => {
    expect(diffJson(before, after)).toEqual(expected);
  });
});

describe('references', () => {
  test('found, resolved, unknown and escaped', () => {
    const value = {
      dataset_id: '${fleetform_dataset.boxes.id}',
      literal: '$${environment.PATH}',
      nested: ['x${fleetform_machine.m1.part_id}y'],
    };
    expect(findReferences(value).map((r) => `${r.address}.${r.output}`)).toEqual([
      'fleetform_dataset.boxes.id',
      'fleetform_machine.m1.part_id',
    ]);
    const resolved = resolveReferences(value, (r) => (r.address === 'fleetform_dataset.boxes' ? 'ds-1' : undefined));
    expect(resolved).toEqual({ dataset_id: 'ds-1', literal: '${environment.PATH}', nested: [unknownValue] });
  });

  test('escapes read as Terraform reads them: $${ and %%{ are literals, in keys too; older unescaped placeholders stay literal', () => {
    const value = {
      escaped: '$${fleetform_dataset.boxes.id} and $$${fleetform_dataset.boxes.id}',
      config: '{"env":{"HOME":"$${environment.HOME}","OLD":"${environment.HOME}","T":"%%{if}"}}',
      keyed: { '$${k}': 'v' },
    };
    expect(findReferences(value)).toEqual([]);
    expect(resolveReferences(value, () => 'never')).toEqual({
      escaped: '${fleetform_dataset.boxes.id} and $${fleetform_dataset.boxes.id}',
      config: '{"env":{"HOME":"${environment.HOME}","OLD":"${environment.HOME}","T":"%{if}"}}',
      keyed: { '${k}': 'v' },
    });
  });

  test('placeholders of machine configs are not references', () => {
    expect(findReferences({ config: '{"env":{"PATH":"${environment.PATH}"}}' })).toEqual([]);
  });

  test('stack document: attributes without meta-arguments, dependencies from references and depends_on', () => {
    const stack = parseStackDocument('s', {
      provider: { fleetform: [{ organization_id: 'o1' }] },
      resource: {
        fleetform_dataset: { boxes: { name: 'boxes' } },
        fleetform_training_job: {
          job: { dataset_id: '${fleetform_dataset.boxes.id}', depends_on: ['fleetform_dataset.boxes'], model_name: 'm' },
        },
      },
    });
    expect(stack.provider).toEqual({ organizationId: 'o1' });
    const job = stack.resources.find((r) => r.address === 'fleetform_training_job.job');
    expect(job?.dependsOn).toEqual(['fleetform_dataset.boxes']);
    expect(job?.attributes).not.toHaveProperty('depends_on');
  });

  test('a reference to an undeclared resource is an error naming it', () => {
    expect(() =>
      parseStackDocument('s', { resource: { fleetform_training_job: { j: { dataset_id: '${fleetform_dataset.nope.id}' } } } }),
    ).toThrow(/fleetform_dataset\.nope/);
  });
});

describe('runGraph', () => {
  test('respects dependencies and bounds parallelism', async () => {
    const order: string[] = [];
    let running = 0;
    let peak = 0;
    const deps: Record<string, string[]> = { a: [], b: [], c: ['a', 'b'], d: ['c'], e: [] };
    await runGraph(
      Object.keys(deps),
      (n) => deps[n] ?? [],
      2,
      async (n) => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setImmediate(r));
        order.push(n);
        running--;
      },
    );
    expect(peak).toBeLessThanOrEqual(2);
    expect(order.indexOf('c')).toBeGreaterThan(order.indexOf('a'));
    expect(order.indexOf('c')).toBeGreaterThan(order.indexOf('b'));
    expect(order.indexOf('d')).toBeGreaterThan(order.indexOf('c'));
  });

  test('a failure skips dependents, independent nodes go on', async () => {
    const ran: string[] = [];
    const skipped: string[] = [];
    const deps: Record<string, string[]> = { a: [], b: ['a'], c: ['b'], x: [] };
    const outcome = await runGraph(
      Object.keys(deps),
      (n) => deps[n] ?? [],
      4,
      async (n) => {
        ran.push(n);
        if (n === 'a') throw new Error('boom');
      },
      (n) => skipped.push(n),
    );
    expect(outcome.get('a')).toBe('failed');
    expect(outcome.get('b')).toBe('skipped');
    expect(outcome.get('c')).toBe('skipped');
    expect(outcome.get('x')).toBe('done');
    expect(ran.sort()).toEqual(['a', 'x']);
    expect(skipped).toEqual(['b', 'c']);
  });

  test('a cycle is an error that prints it', async () => {
    await expect(
      runGraph(
        ['a', 'b'],
        (n) => (n === 'a' ? ['b'] : ['a']),
        1,
        async () => undefined,
      ),
    ).rejects.toThrow(/a -> b -> a|b -> a -> b/);
  });
});

describe('masking', () => {
  test('secrets become salted hashes that compare equal only when equal', () => {
    const doc = { config: { modules: { m: { env: { API_TOKEN: 's3cret', PATH: '/bin' } } } } };
    const paths = ['config.modules.m.env.API_TOKEN'];
    const a = maskPaths(doc, paths, 'salt');
    expect(JSON.stringify(a)).not.toContain('s3cret');
    expect(isMasked(a.config.modules.m.env.API_TOKEN)).toBe(true);
    expect(a.config.modules.m.env.PATH).toBe('/bin');
    expect(maskPaths(doc, paths, 'salt')).toEqual(a);
    expect(maskPaths({ config: { modules: { m: { env: { API_TOKEN: 'other', PATH: '/bin' } } } } }, paths, 'salt')).not.toEqual(a);
  });

  test('a plan with unknown values matches what apply computes', () => {
    expect(matchesPlanned({ a: unknownValue, b: 1 }, { a: 'ds-1', b: 1 })).toBe(true);
    expect(matchesPlanned({ a: unknownValue, b: 1 }, { a: 'ds-1', b: 2 })).toBe(false);
  });
});

describe('LocalStateBackend', () => {
  let dir: string;
  const textOf = async (b: LocalStateBackend, s: Parameters<LocalStateBackend['write']>[0]): Promise<string> => {
    await b.write(s);
    return fs.readFile(path.join(dir, 'fleet.state.json'), 'utf8');
  };
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ff-state-'));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  test('missing state is empty with a lineage; writes are 0600 and read back', async () => {
    const b = new LocalStateBackend(dir);
    const s = await b.read('fleet');
    expect(s.serial).toBe(0);
    expect(s.lineage).toMatch(/[0-9a-f-]{36}/);
    s.serial = 1;
    s.resources['fleetform_dataset.d'] = {
      type: 'fleetform_dataset',
      ids: { id: 'x' },
      outputs: { id: 'x' },
      attributes: { name: 'd' },
      dependencies: [],
      private: {},
      sensitive_paths: [],
      status: 'ok',
    };
    await b.write(s);
    const stat = await fs.stat(path.join(dir, 'fleet.state.json'));
    expect(stat.mode & 0o777).toBe(0o600);
    expect(await b.read('fleet')).toEqual(s);
    expect((await fs.readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  test('the state text is JSON.stringify(state, null, 2) exactly, written in pieces; a state that is not one is named with its field', async () => {
    const b = new LocalStateBackend(dir);
    const s = await b.read('fleet');
    expect(await textOf(b, s)).toBe(`${JSON.stringify(s, null, 2)}\n`); // no resources
    s.serial = 7;
    for (let i = 0; i < 3000; i++) {
      s.resources[`fleetform_machine.m-${i}`] = {
        type: 'fleetform_machine',
        ids: { machine_id: `id-${i}` },
        outputs: {},
        attributes: {
          name: `m-${i}`,
          config: { components: { cam: { attributes: { note: 'line\nbreak "quoted" ünï', list: [1, [], {}, [2, { x: null }]] } } } },
        },
        dependencies: i % 2 ? [`fleetform_machine.m-${i - 1}`] : [],
        private: { pins: {} },
        sensitive_paths: [],
        status: 'ok',
      };
    }
    const text = await textOf(b, s);
    expect(text.length).toBeGreaterThan(1 << 20); // more than one batch
    expect(text).toBe(`${JSON.stringify(s, null, 2)}\n`);
    expect(await b.read('fleet')).toEqual(s);

    await fs.writeFile(
      path.join(dir, 'fleet.state.json'),
      JSON.stringify({
        ...s,
        resources: { 'fleetform_machine.x': { type: 'fleetform_machine', ids: {}, outputs: {}, attributes: 'text' } },
      }),
    );
    await expect(b.read('fleet')).rejects.toMatchObject({ path: expect.stringContaining('#resources["fleetform_machine.x"].attributes') });
  });

  test('recorded changes survive without a full write, a torn last line is ignored, the next write folds them in', async () => {
    const b = new LocalStateBackend(dir);
    const s = await b.read('fleet');
    const entry = (id: string) => ({
      type: 'fleetform_dataset',
      ids: { id },
      outputs: { id },
      attributes: { name: id },
      dependencies: [],
      private: {},
      sensitive_paths: [],
      status: 'ok' as const,
    });
    s.serial = 1;
    await b.record(
      s,
      new Map([
        ['fleetform_dataset.a', entry('a')],
        ['fleetform_dataset.b', entry('b')],
      ]),
    );
    s.serial = 2;
    await b.record(s, new Map([['fleetform_dataset.a', null]]));
    await fs.appendFile(path.join(dir, 'fleet.journal.jsonl'), '{"lineage":"cut sho');

    const replayed = await b.read('fleet');
    expect(replayed.lineage).toBe(s.lineage);
    expect(replayed.serial).toBe(2);
    expect(Object.keys(replayed.resources)).toEqual(['fleetform_dataset.b']);
    expect((await fs.stat(path.join(dir, 'fleet.journal.jsonl'))).mode & 0o777).toBe(0o600);

    replayed.serial = 3;
    await b.write(replayed);
    expect(await fs.readdir(dir)).not.toContain('fleet.journal.jsonl');
    expect(Object.keys((await b.read('fleet')).resources)).toEqual(['fleetform_dataset.b']);
  });

  test('state log lines already folded into the document are not applied twice', async () => {
    const b = new LocalStateBackend(dir);
    const s = await b.read('fleet');
    s.serial = 1;
    await b.record(s, new Map([['fleetform_dataset.a', null]]));
    s.serial = 2;
    s.resources['fleetform_dataset.a'] = {
      type: 'fleetform_dataset',
      ids: { id: 'a' },
      outputs: { id: 'a' },
      attributes: null,
      dependencies: [],
      private: {},
      sensitive_paths: [],
      status: 'ok',
    };
    await b.write(s);
    await fs.writeFile(
      path.join(dir, 'fleet.journal.jsonl'),
      `${JSON.stringify({ lineage: s.lineage, serial: 1, address: 'fleetform_dataset.a', entry: null })}\n`,
    );
    expect(Object.keys((await b.read('fleet')).resources)).toEqual(['fleetform_dataset.a']);
  });

  test('a corrupt state file is a clear error, not a crash', async () => {
    await fs.writeFile(path.join(dir, 'fleet.state.json'), '{not json');
    await expect(new LocalStateBackend(dir).read('fleet')).rejects.toThrow(/not valid JSON/);
  });

  test('a second lock waits, then fails naming the holder; force-unlock needs the right ID', async () => {
    const b = new LocalStateBackend(dir);
    const first = await b.lock('fleet', 'apply', { timeoutMs: 0 });
    await expect(b.lock('fleet', 'plan', { timeoutMs: 50 })).rejects.toThrow(new RegExp(`locked by .*"apply".*${first.info.id}`));
    await expect(b.forceUnlock('fleet', 'wrong-id')).rejects.toThrow(/does not match/);
    await b.forceUnlock('fleet', first.info.id);
    const second = await b.lock('fleet', 'plan', { timeoutMs: 0 });
    await second.release();
    expect(await b.lockHolder('fleet')).toBeUndefined();
  });

  test('a waiting lock is granted once the holder releases', async () => {
    const b = new LocalStateBackend(dir);
    const first = await b.lock('fleet', 'apply', { timeoutMs: 0 });
    const waiting = b.lock('fleet', 'apply', { timeoutMs: 5000 });
    await first.release();
    const second = await waiting;
    expect(second.info.id).not.toBe(first.info.id);
    await second.release();
  });
});
