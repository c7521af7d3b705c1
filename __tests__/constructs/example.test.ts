import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, TerraformStack, Testing } from 'cdktf';
import { analyzeApp } from '../../src/constructs';
import { buildFleet } from '../../stacks';
import { machineConfig, resourceOf, type SynthDoc } from './helpers';
import { unescapeTemplate } from '../../src/domain';

/** The parsed `config` of a synthesized fragment. */
function fragmentConfig(doc: SynthDoc, logicalId: string): ReturnType<typeof machineConfig> {
  return JSON.parse(unescapeTemplate(resourceOf(doc, 'fleetform_fragment', logicalId).config as string)) as ReturnType<
    typeof machineConfig
  >;
}

function exampleApp(): { app: App; warehouse: SynthDoc; training: SynthDoc } {
  const app = Testing.app();
  buildFleet(app);
  const stack = (id: string): TerraformStack => app.node.findChild(id) as TerraformStack;
  return {
    app,
    warehouse: JSON.parse(Testing.synth(stack('warehouse'), true)) as SynthDoc,
    training: JSON.parse(Testing.synth(stack('training'), true)) as SynthDoc,
  };
}

describe('the example fleet (stacks/)', () => {
  test('has no errors and no warnings', () => {
    const { app } = exampleApp();
    expect(analyzeApp(app).issues).toEqual([]);
  });

  test('warehouse: five machines with readable addresses, three pickers importing one sensor-rig fragment (acme:sensors under ~1.2) at its stable tag', () => {
    const { warehouse } = exampleApp();
    expect(Object.keys(warehouse.resource?.fleetform_machine ?? {}).sort()).toEqual([
      'inspector-1',
      'packer-1',
      'picker-1',
      'picker-2',
      'picker-3',
    ]);
    const sensorsModule = {
      type: 'registry',
      name: 'acme_sensors',
      module_id: 'acme:sensors',
      version: '~1.2',
      env: { PATH: '/opt/acme/bin:${environment.PATH}', ACME_LOG_LEVEL: 'info' },
    };
    const rig = fragmentConfig(warehouse, 'picker-rig');
    expect(resourceOf(warehouse, 'fleetform_fragment', 'picker-rig').name).toBe('picker-sensor-rig');
    expect(rig.modules).toEqual([sensorsModule]);
    expect(resourceOf(warehouse, 'fleetform_fragment_tag', 'picker-rig-stable')).toEqual({
      fragment_id: '${fleetform_fragment.picker-rig.id}',
      tag: 'stable',
      revision: '${fleetform_fragment.picker-rig.revision}',
    });
    const pins = { 'picker-1': ['11', '13'], 'picker-2': ['15', '16'], 'picker-3': ['18', '22'] };
    for (const [id, [trigger, echo]] of Object.entries(pins)) {
      const picker = machineConfig(warehouse, id) as ReturnType<typeof machineConfig> & { fragments?: unknown };
      expect(picker.modules).toEqual([]);
      expect(picker.components).toEqual([]);
      expect(picker.fragments).toEqual([
        { id: '${fleetform_fragment.picker-rig.id}', version: 'stable', variables: { trigger_pin: trigger, echo_pin: echo } },
      ]);
      expect(resourceOf(warehouse, 'fleetform_machine', id).depends_on).toEqual(['fleetform_fragment_tag.picker-rig-stable']);
    }
    expect(machineConfig(warehouse, 'inspector-1').modules.find((m) => m.module_id === 'acme:sensors')).toEqual(sensorsModule);
    expect(warehouse.provider?.fleetform).toEqual([{}]);
  });

  test('warehouse: the seed sensor and camera shapes, the pins as variables of the fragment', () => {
    const { warehouse } = exampleApp();
    const [board, sensor, camera] = fragmentConfig(warehouse, 'picker-rig').components;
    expect(board).toMatchObject({ name: 'board-1', api: 'rdk:component:board', model: 'acme:sensors:pi-board' });
    expect(sensor).toEqual({
      name: 'ultrasonic-1',
      api: 'rdk:component:sensor',
      model: 'acme:sensors:hc-sr04',
      attributes: {
        trigger_pin: { $variable: { name: 'trigger_pin' } },
        echo_interrupt_pin: { $variable: { name: 'echo_pin' } },
        board: 'board-1',
        timeout_ms: 150,
      },
      depends_on: ['board-1'],
    });
    expect(camera).toEqual({
      name: 'camera-1',
      api: 'rdk:component:camera',
      model: 'acme:sensors:multi-cam',
      attributes: { sensors: ['ultrasonic-1'] },
      depends_on: ['ultrasonic-1'],
    });
  });

  test('warehouse: the inspector runs a vision service and a local module; the packer is pinned at first apply', () => {
    const { warehouse } = exampleApp();
    const inspector = machineConfig(warehouse, 'inspector-1');
    expect(inspector.services.map((s) => [s.name, s.api, s.model])).toEqual([
      ['box-finder', 'rdk:service:vision', 'acme:vision:box-finder'],
    ]);
    expect(inspector.modules.find((m) => m.type === 'local')).toEqual({
      type: 'local',
      name: 'fleet_gripper',
      module_id: 'fleet:gripper',
      executable_path: '/opt/fleet/gripper/bin/gripper-driver',
      env: { GRIPPER_CALIBRATION: '${environment.HOME}/.config/gripper.json' },
    });
    expect(machineConfig(warehouse, 'packer-1').modules).toEqual([
      { type: 'registry', name: 'acme_arm-control', module_id: 'acme:arm-control' },
    ]);
  });

  test('training: a dataset, a managed job and a custom acme:trainer 0.3.0 job referencing it', () => {
    const { training } = exampleApp();
    expect(resourceOf(training, 'fleetform_dataset', 'boxes')).toEqual({ name: 'warehouse-boxes' });
    expect(resourceOf(training, 'fleetform_training_job', 'box-detector')).toMatchObject({
      dataset_id: '${fleetform_dataset.boxes.id}',
      model_type: 'MODEL_TYPE_OBJECT_DETECTION',
      tags: ['box', 'pallet'],
    });
    expect(resourceOf(training, 'fleetform_custom_training_job', 'box-detector-custom')).toMatchObject({
      dataset_id: '${fleetform_dataset.boxes.id}',
      registry_item_id: 'acme:trainer',
      registry_item_version: '0.3.0',
      retain_on_delete: true,
    });
  });

  test('app.synth() writes both stacks and a manifest listing them', () => {
    const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetform-example-'));
    const app = new App({ outdir });
    buildFleet(app);
    app.synth();
    const manifest = JSON.parse(fs.readFileSync(path.join(outdir, 'manifest.json'), 'utf8')) as { stacks: Record<string, unknown> };
    expect(Object.keys(manifest.stacks).sort()).toEqual(['training', 'warehouse']);
    const doc = JSON.parse(fs.readFileSync(path.join(outdir, 'stacks', 'warehouse', 'cdk.tf.json'), 'utf8')) as SynthDoc;
    expect(resourceOf(doc, 'fleetform_machine', 'picker-1')['//']).toEqual({
      metadata: { path: 'warehouse/picker-1', uniqueId: 'picker-1' },
    });
  });
});
