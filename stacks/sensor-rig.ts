import { Construct } from 'constructs';
import { ModularResource, Module, type JsonObject } from 'fleetform';

/** Options of a {@link SensorRig}. */
export interface SensorRigProps {
  /** GPIO pin triggering the ultrasonic sensor (in a Fragment, a variable each machine sets). */
  readonly triggerPin: string | JsonObject;
  /** GPIO pin receiving its echo interrupt (in a Fragment, a variable each machine sets). */
  readonly echoPin: string | JsonObject;
}

/**
 * The sensor kit every picking station carries, from the registry module `acme:sensors`
 * (minor policy ~1.2: newer 1.2.x patches roll out, 1.3 and 2.x do not): a board, an
 * ultrasonic distance sensor wired to it, and a camera that fuses the sensor's readings.
 * Declared inside a Machine, it becomes part of that machine's config; declared inside a
 * Fragment, part of the config every machine importing the fragment runs.
 */
export class SensorRig extends Construct {
  readonly module: Module;
  readonly board: ModularResource;
  readonly ultrasonic: ModularResource;
  readonly camera: ModularResource;

  constructor(scope: Construct, id: string, props: SensorRigProps) {
    super(scope, id);
    this.module = new Module(this, 'sensors', {
      moduleId: 'acme:sensors',
      version: '~1.2',
      env: { PATH: '/opt/acme/bin:${environment.PATH}', ACME_LOG_LEVEL: 'info' },
    });
    this.board = new ModularResource(this, 'board', {
      name: 'board-1',
      api: 'rdk:component:board',
      model: this.module.model('pi-board'),
    });
    this.ultrasonic = new ModularResource(this, 'ultrasonic', {
      name: 'ultrasonic-1',
      api: 'rdk:component:sensor',
      model: this.module.model('hc-sr04'),
      attributes: { trigger_pin: props.triggerPin, echo_interrupt_pin: props.echoPin, board: 'board-1', timeout_ms: 150 },
      dependsOn: [this.board],
    });
    this.camera = new ModularResource(this, 'camera', {
      name: 'camera-1',
      api: 'rdk:component:camera',
      model: this.module.model('multi-cam'),
      attributes: { sensors: ['ultrasonic-1'] },
      dependsOn: [this.ultrasonic],
    });
  }
}
