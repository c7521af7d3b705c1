import { TerraformStack } from 'cdktf';
import type { Construct } from 'constructs';
import { FleetProvider, Fragment, FragmentTag, Machine, ModularResource, Module } from 'fleetform';
import { SensorRig } from './sensor-rig';

/**
 * The warehouse floor: three picking stations importing the `acme:sensors` rig as one
 * fragment (at its `stable` tag, each setting its own pins), an
 * inspection station running the box finder next to a locally built gripper driver, and
 * a packing arm whose module is pinned to the newest release at its first apply.
 * Organization and location come from the API key at plan time (the embedded emulator
 * has exactly one of each), so the stack runs unchanged against it.
 */
export class WarehouseStack extends TerraformStack {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    new FleetProvider(this, 'cloud');

    const pins = [
      { triggerPin: '11', echoPin: '13' },
      { triggerPin: '15', echoPin: '16' },
      { triggerPin: '18', echoPin: '22' },
    ];
    // The pickers' rig is written once: a change of it is one change reaching every picker.
    const pickerRig = new Fragment(this, 'picker-rig', { name: 'picker-sensor-rig' });
    new SensorRig(pickerRig, 'rig', { triggerPin: pickerRig.variable('trigger_pin'), echoPin: pickerRig.variable('echo_pin') });
    new FragmentTag(this, 'picker-rig-stable', { fragment: pickerRig, tag: 'stable' });
    pins.forEach((wiring, i) => {
      new Machine(this, `picker-${i + 1}`).useFragment(pickerRig, {
        version: 'stable',
        variables: { trigger_pin: wiring.triggerPin, echo_pin: wiring.echoPin },
      });
    });

    const inspector = new Machine(this, 'inspector-1');
    const rig = new SensorRig(inspector, 'rig', { triggerPin: '11', echoPin: '13' });
    const vision = new Module(inspector, 'vision', { moduleId: 'acme:vision', version: '^1' });
    new ModularResource(inspector, 'box-finder', {
      name: 'box-finder',
      api: 'rdk:service:vision',
      model: vision.model('box-finder'),
      attributes: { camera_name: 'camera-1', confidence_threshold: 0.6 },
      dependsOn: [rig.camera],
    });
    const gripper = new Module(inspector, 'gripper-driver', {
      moduleId: 'fleet:gripper',
      executablePath: '/opt/fleet/gripper/bin/gripper-driver',
      env: { GRIPPER_CALIBRATION: '${environment.HOME}/.config/gripper.json' },
    });
    new ModularResource(inspector, 'gripper', {
      name: 'gripper-1',
      api: 'rdk:component:gripper',
      model: gripper.model('soft-gripper'),
      attributes: { board: 'board-1', pwm_pin: '32' },
      dependsOn: [rig.board],
    });

    const packer = new Machine(this, 'packer-1');
    const arm = new Module(packer, 'arm', { moduleId: 'acme:arm-control' });
    new ModularResource(packer, 'arm-1', {
      api: 'rdk:component:arm',
      model: arm.model('six-axis'),
      attributes: { host: '10.0.4.21', speed_degs_per_sec: 30 },
    });
  }
}
