/**
 * A config holds exactly the sections its code declares: the three lists a machine always
 * writes unless `emptyLists` names others, each list with entries, bare-id imports where
 * code asks for them, and environment placeholders as written (no secret).
 */
import { Component, Fragment, Machine, Module, Part, Remote } from '../../src/constructs';
import { unescapeTemplate } from '../../src/domain';
import { newStack, resourceOf, synth, type SynthDoc } from './helpers';

function configOf(doc: SynthDoc, type: string, logicalId: string): Record<string, unknown> {
  return JSON.parse(unescapeTemplate(resourceOf(doc, type, logicalId).config as string)) as Record<string, unknown>;
}

test('a machine without emptyLists writes its three lists; emptyLists names exactly the lists held empty', () => {
  const { stack } = newStack();
  new Machine(stack, 'plain');
  new Machine(stack, 'none', { emptyLists: [] });
  const some = new Machine(stack, 'some', { emptyLists: ['services', 'packages', 'remotes', 'processes'] });
  new Component(some, 'board', { api: 'rdk:component:board', model: 'fake' });
  new Part(new Machine(stack, 'withPart'), 'arm', { emptyLists: ['modules'] });
  new Fragment(stack, 'kit', { emptyLists: ['components'] });
  const doc = synth(stack);
  expect(configOf(doc, 'fleetform_machine', 'plain')).toEqual({ components: [], services: [], modules: [] });
  expect(configOf(doc, 'fleetform_machine', 'none')).toEqual({});
  // A list with entries is written whether named or not.
  expect(configOf(doc, 'fleetform_machine', 'some')).toEqual({
    components: [{ name: 'board', api: 'rdk:component:board', model: 'fake' }],
    services: [],
    packages: [],
    remotes: [],
    processes: [],
  });
  expect(configOf(doc, 'fleetform_machine_part', 'withPart_arm')).toEqual({ modules: [] });
  expect(configOf(doc, 'fleetform_fragment', 'kit')).toEqual({ components: [] });
});

test('an override still wins over emptyLists', () => {
  const { stack } = newStack();
  new Machine(stack, 'm', { emptyLists: [] }).addConfigOverride('services', []);
  expect(configOf(synth(stack), 'fleetform_machine', 'm')).toEqual({ services: [] });
});

test('emptyLists takes known lists, each once', () => {
  const { stack } = newStack();
  expect(() => new Machine(stack, 'a', { emptyLists: ['widgets' as never] })).toThrow(/emptyLists/);
  expect(() => new Machine(stack, 'b', { emptyLists: ['modules', 'modules'] })).toThrow(/name each list once/);
});

test('useFragment with bareId writes the bare id, mods apart; it takes no other option', () => {
  const { stack } = newStack();
  const m = new Machine(stack, 'm');
  m.useFragment('f-1', { bareId: true, mods: [{ $set: { 'components.b.attributes.x': 1 } }] });
  m.useFragment('f-2');
  const config = configOf(synth(stack), 'fleetform_machine', 'm');
  expect(config.fragments).toEqual(['f-1', { id: 'f-2' }]);
  expect(config.fragment_mods).toEqual([{ fragment_id: 'f-1', mods: [{ $set: { 'components.b.attributes.x': 1 } }] }]);
  expect(() => m.useFragment('f-3', { bareId: true, version: '2' })).toThrow(/bare id takes no version/);
});

test('a value wholly an environment placeholder stays in config as written, at a secret path or a secret-looking env name', () => {
  const { stack } = newStack();
  const m = new Machine(stack, 'm', {
    auth: { handlers: [{ type: 'api-key', config: { 'key-a': '${environment.KEY_A}', keys: ['key-a'] } }] },
  });
  new Module(m, 'helper', { executablePath: '/opt/helper', env: { API_TOKEN: '${environment.API_TOKEN}' } });
  new Remote(m, 'arm', { address: 'arm.local:8080', credentials: { type: 'api-key', payload: '${RDK_AUTH_API_KEY}' } });
  const doc = synth(stack);
  const machine = resourceOf(doc, 'fleetform_machine', 'm');
  expect(machine.secret_env).toBeUndefined();
  expect(machine.secrets).toBeUndefined();
  // Escaped for Terraform's templates, read back literally.
  expect(machine.config).toContain('$${environment.API_TOKEN}');
  const config = configOf(doc, 'fleetform_machine', 'm');
  expect((config.modules as Array<{ env: unknown }>)[0]?.env).toEqual({ API_TOKEN: '${environment.API_TOKEN}' });
  expect(config.remotes).toEqual([
    { name: 'arm', address: 'arm.local:8080', auth: { credentials: { type: 'api-key', payload: '${RDK_AUTH_API_KEY}' } } },
  ]);
  expect(config.auth).toEqual({ handlers: [{ type: 'api-key', config: { 'key-a': '${environment.KEY_A}', keys: ['key-a'] } }] });
});
