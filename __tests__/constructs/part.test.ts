import { Token } from 'cdktf';
import { Component, Fragment, Machine, Module, Part, Remote, Secret } from '../../src';
import { unescapeTemplate } from '../../src/domain';
import { errorsOf, machineConfig, newStack, resourceOf, synth } from './helpers';

function partConfig(doc: ReturnType<typeof synth>, logicalId: string): Record<string, unknown> {
  const config = resourceOf(doc, 'fleetform_machine_part', logicalId).config;
  if (typeof config !== 'string') throw new Error('config is not a string');
  return JSON.parse(unescapeTemplate(config)) as Record<string, unknown>;
}

describe('Part', () => {
  test("a part inside a machine is its own fleetform_machine_part, its entries kept out of the main part's config", () => {
    const { stack } = newStack();
    const robot = new Machine(stack, 'rover', { locationId: 'loc-1' });
    new Component(robot, 'base', { api: 'rdk:component:base', model: 'fake' });
    const arm = new Part(robot, 'arm-controller', { network: { bind_address: ':8081' } });
    const drivers = new Module(arm, 'drivers', {
      name: 'drivers',
      moduleId: 'acme:arm',
      version: '1.2.0',
      sensitiveEnv: { ARM_TOKEN: Secret.plainText('hunter2') },
    });
    new Component(arm, 'arm', { api: 'rdk:component:arm', model: drivers.model('six-axis'), attributes: { port: '/dev/ttyUSB0' } });
    const doc = synth(stack);

    expect(machineConfig(doc, 'rover').components.map((c) => c.name)).toEqual(['base']);
    expect(machineConfig(doc, 'rover').modules).toEqual([]);
    const part = resourceOf(doc, 'fleetform_machine_part', 'rover_arm-controller');
    expect(part.machine_id).toBe('${fleetform_machine.rover.id}');
    expect(part.name).toBe('arm-controller');
    expect(part.secret_env).toEqual({ 'drivers.ARM_TOKEN': 'hunter2' });
    expect(partConfig(doc, 'rover_arm-controller')).toEqual({
      components: [{ name: 'arm', api: 'rdk:component:arm', model: 'acme:arm:six-axis', attributes: { port: '/dev/ttyUSB0' } }],
      services: [],
      modules: [{ type: 'registry', name: 'drivers', module_id: 'acme:arm', version: '1.2.0' }],
      network: { bind_address: ':8081' },
    });
    expect(Part.isPart(arm)).toBe(true);
    expect(Part.isPart(robot)).toBe(false);
    expect(Token.isUnresolved(arm.machineId) && Token.isUnresolved(arm.partId)).toBe(true);
    expect(arm.locationId).toBe('loc-1');
  });

  test('a part takes remotes, overrides and fragment imports of its own; secrets by reference stay references', () => {
    const { stack } = newStack();
    const robot = new Machine(stack, 'rover');
    const rig = new Fragment(stack, 'rig');
    const cam = new Part(robot, 'cam', { name: 'camera-rig' });
    new Remote(cam, 'main', { address: 'rover-main.local:8080', credentials: { type: 'api-key', payload: Secret.fromEnv('ROVER_KEY') } });
    cam.useFragment(rig);
    cam.addConfigOverride('_comment', 'the rig on the mast');
    const doc = synth(stack);
    const part = resourceOf(doc, 'fleetform_machine_part', 'rover_cam');
    expect(part.name).toBe('camera-rig');
    expect(part.secrets).toEqual({ 'remotes.main.auth.credentials.payload': { from: 'env', name: 'ROVER_KEY' } });
    const config = partConfig(doc, 'rover_cam');
    expect(config.fragments).toEqual([{ id: '${fleetform_fragment.rig.id}' }]);
    expect(config._comment).toBe('the rig on the mast');
    expect(JSON.stringify(config)).not.toContain('ROVER_KEY');
  });

  test('a part outside a machine, or inside another part or a fragment, is refused at once', () => {
    const { stack } = newStack();
    const robot = new Machine(stack, 'rover');
    const arm = new Part(robot, 'arm');
    expect(() => new Part(stack, 'loose')).toThrow('a Part must be declared inside a Machine');
    expect(() => new Part(arm, 'nested')).toThrow('a Part must be declared inside a Machine');
    expect(() => new Part(new Fragment(stack, 'f'), 'p')).toThrow('a Part must be declared inside a Machine');
    expect(() => new Part(robot, 'bad', { debug: 'yes' as unknown as boolean })).toThrow(/Part: "debug"/);
  });

  test('two parts of one machine with one name, or an empty name, are errors of the app', () => {
    const { app, stack } = newStack();
    const robot = new Machine(stack, 'rover');
    new Part(robot, 'a', { name: 'arm' });
    new Part(robot, 'b', { name: 'arm' });
    new Part(robot, 'c', { name: '' });
    new Part(new Machine(stack, 'other'), 'a', { name: 'arm' });
    expect(errorsOf(app)).toEqual(['stack/rover/b name duplicate-part-name', 'stack/rover/c name part-name']);
  });
});
