import { Fragment, FragmentTag, Machine, ModularResource, Module } from '../../src';
import { errorsOf, machineConfig, newStack, resourceOf, synth } from './helpers';
import { unescapeTemplate } from '../../src/domain';

function rig(stack: ConstructableStack) {
  const fragment = new Fragment(stack, 'sensor-rig', { name: 'sensor-rig' });
  const sensors = new Module(fragment, 'sensors', { moduleId: 'acme:sensors', version: '~1.2' });
  new ModularResource(fragment, 'board', {
    name: 'board',
    api: 'rdk:component:board',
    model: sensors.model('pi-board'),
    attributes: { pin: fragment.variable('board_pin') },
  });
  return fragment;
}
type ConstructableStack = ReturnType<typeof newStack>['stack'];

describe('Fragment', () => {
  test('holds modules and modular resources like a machine; its config is JSON text with its variables as placeholders', () => {
    const { stack } = newStack();
    const fragment = rig(stack);
    const doc = synth(stack);
    const synthesized = resourceOf(doc, 'fleetform_fragment', 'sensor-rig');
    expect(synthesized.name).toBe('sensor-rig');
    expect(JSON.parse(unescapeTemplate(synthesized.config as string))).toEqual({
      components: [
        {
          name: 'board',
          api: 'rdk:component:board',
          model: 'acme:sensors:pi-board',
          attributes: { pin: { $variable: { name: 'board_pin' } } },
          depends_on: [],
        },
      ],
      services: [],
      modules: [{ type: 'registry', name: 'acme_sensors', module_id: 'acme:sensors', version: '~1.2' }],
    });
    expect(fragment.modules.map((m) => m.name)).toEqual(['acme_sensors']);
    expect(fragment.resources.map((r) => r.machine)).toEqual([fragment]);
    expect(Fragment.isFragment(fragment)).toBe(true);
    expect(errorsOf(stack)).toEqual([]);
  });

  test("a machine imports it by reference: fragments and fragment_mods in its config, the machine's own parts kept", () => {
    const { stack } = newStack();
    const fragment = rig(stack);
    const picker = new Machine(stack, 'picker');
    new Module(picker, 'arm', { moduleId: 'acme:arm', version: '1.0.0' });
    picker.useFragment(fragment, {
      version: 'stable',
      prefix: 'front',
      variables: { board_pin: '11' },
      mods: [{ $set: { 'components.front-board.attributes.timeout_ms': 200 } }],
    });
    picker.useFragment('existing-fragment-id', { disabled: true });
    const config = machineConfig(synth(stack), 'picker') as unknown as Record<string, unknown>;
    expect(config.modules).toEqual([{ type: 'registry', name: 'acme_arm', module_id: 'acme:arm', version: '1.0.0' }]);
    expect(config.fragments).toEqual([
      { id: '${fleetform_fragment.sensor-rig.id}', version: 'stable', prefix: 'front', variables: { board_pin: '11' } },
      { id: 'existing-fragment-id', disabled: true },
    ]);
    expect(config.fragment_mods).toEqual([
      { fragment_id: '${fleetform_fragment.sensor-rig.id}', mods: [{ $set: { 'components.front-board.attributes.timeout_ms': 200 } }] },
    ]);
    expect(errorsOf(stack)).toEqual([]);
  });

  test('a tag names the revision its fragment saved unless given one', () => {
    const { stack } = newStack();
    const fragment = rig(stack);
    new FragmentTag(stack, 'rig-stable', { fragment, tag: 'stable' });
    new FragmentTag(stack, 'rig-old', { fragment: 'frag-1', tag: 'old', revision: '2' });
    new Machine(stack, 'follower').useFragment(fragment, { version: 'stable' });
    new Machine(stack, 'pinned').useFragment(fragment, { version: '1' });
    const doc = synth(stack);
    // A machine importing at a tag the stack declares follows that tag: it is written after it.
    expect(resourceOf(doc, 'fleetform_machine', 'follower').depends_on).toEqual(['fleetform_fragment_tag.rig-stable']);
    expect(resourceOf(doc, 'fleetform_machine', 'pinned').depends_on).toBeUndefined();
    expect(resourceOf(doc, 'fleetform_fragment_tag', 'rig-stable')).toEqual({
      fragment_id: '${fleetform_fragment.sensor-rig.id}',
      tag: 'stable',
      revision: '${fleetform_fragment.sensor-rig.revision}',
    });
    expect(resourceOf(doc, 'fleetform_fragment_tag', 'rig-old')).toEqual({ fragment_id: 'frag-1', tag: 'old', revision: '2' });
  });

  test('wrong uses are refused naming the fix', () => {
    const { stack } = newStack();
    const fragment = rig(stack);
    const picker = new Machine(stack, 'picker');
    expect(() => picker.useFragment(fragment, { versoin: '1' } as never)).toThrow(/unknown prop "versoin"/);
    expect(() => fragment.variable('bad name')).toThrow(/not valid/);
    expect(() => new Fragment(picker, 'inner')).toThrow(/cannot be declared inside a Machine/);
    expect(() => new FragmentTag(stack, 't', { fragment, tag: 'Stable' })).toThrow(/lowercase/);
    expect(() => new FragmentTag(stack, 'v', { fragment, tag: 'v1' })).toThrow(/cannot start with v/);
    expect(() => fragment.machineId).toThrow(/has no machine id/);
  });

  test('a secret env entry in a fragment, and two fragments of one name, are errors of the app', () => {
    const { stack } = newStack();
    const fragment = new Fragment(stack, 'a', { name: 'rig' });
    new Fragment(stack, 'b', { name: 'rig' });
    new Module(fragment, 'cloud', { moduleId: 'acme:cloud', version: '1.0.0', sensitiveEnv: { API_TOKEN: 'x' } });
    expect(errorsOf(stack)).toEqual(['stack/a/cloud sensitiveEnv.API_TOKEN fragment-secret-env', 'stack/b name duplicate-fragment-name']);
  });
});
