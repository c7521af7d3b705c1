/**
 * main.ts of a new project: a two-machine fleet that plans and applies as it is on the
 * embedded emulator, whose registry holds the `acme:sensors` module it uses.
 */
export const MAIN_TS = `import { App, TerraformStack } from 'cdktn';
import type { Construct } from 'constructs';
import { Component, FleetProvider, Fragment, Location, Machine, ModularResource, Module } from 'fleetform/cdktn';

/**
 * Two rovers in one yard. Both import the sensor rig of one fragment: the registry module
 * acme:sensors on its newest 1.2.x release (the "~1.2" policy), a board and an ultrasonic
 * sensor wired to the trigger pin each rover sets. Each also has a camera of its own.
 * The organization comes from the API key; with no FLEETFORM_ENDPOINT set, fleetform plans
 * and applies on its embedded emulator.
 */
class FleetStack extends TerraformStack {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    new FleetProvider(this, 'cloud');
    const yard = new Location(this, 'yard');

    const rig = new Fragment(this, 'sensor-rig', { name: 'sensor-rig' });
    const sensors = new Module(rig, 'sensors', { moduleId: 'acme:sensors', version: '~1.2' });
    const board = new ModularResource(rig, 'board', { name: 'board-1', api: 'rdk:component:board', model: sensors.model('pi-board') });
    new ModularResource(rig, 'ultrasonic', {
      name: 'ultrasonic-1',
      api: 'rdk:component:sensor',
      model: sensors.model('hc-sr04'),
      attributes: { board: 'board-1', trigger_pin: rig.variable('trigger_pin'), echo_interrupt_pin: '13' },
      dependsOn: [board],
    });

    for (const [name, triggerPin] of [
      ['rover-1', '11'],
      ['rover-2', '15'],
    ]) {
      const rover = new Machine(this, name, { location: yard });
      rover.useFragment(rig, { variables: { trigger_pin: triggerPin } });
      new Component(rover, 'camera', { name: 'camera-1', api: 'rdk:component:camera', model: 'fake' });
    }
  }
}

const app = new App();
new FleetStack(app, 'fleet');
app.synth();
`;
