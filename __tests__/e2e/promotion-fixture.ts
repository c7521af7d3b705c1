import * as path from 'node:path';
import { App, LocalBackend, TerraformStack } from 'cdktf';
import {
  Component,
  Dataset,
  FleetProvider,
  Machine,
  Metric,
  ModelPromotion,
  ModelType,
  ModularResource,
  Module,
  TrainingJob,
} from '../../src';
import type { EmulatorProject } from './fleet-fixture';

export const INSPECTORS = ['inspector-1', 'inspector-2', 'inspector-3'];

const CAPTURE = [
  { type: 'data_manager', attributes: { capture_methods: [{ method: 'Readings', capture_frequency_hz: 20, additional_params: {} }] } },
];

/**
 * Three inspectors deploying box-detector@`version` (trained by a job) to their mlmodel
 * service, each capturing its `detections` sensor (whose `confidence` the model's version
 * scales on the emulator); the promotion rolls a new version to inspector-1 first and
 * compares its mean confidence with the two others'.
 */
export function synthPromotedFleet(outdir: string, version: string, allowRejected?: string[]): void {
  const app = new App({ outdir });
  const stack = new TerraformStack(app, 'fleet');
  new LocalBackend(stack, { path: path.join(path.dirname(path.resolve(outdir)), 'terraform.fleet.tfstate') });
  new FleetProvider(stack, 'cloud', {});
  const boxes = new Dataset(stack, 'boxes', { name: 'boxes' });
  const job = new TrainingJob(stack, 'box-detector', {
    dataset: boxes,
    modelName: 'box-detector',
    modelVersion: version,
    modelType: ModelType.OBJECT_DETECTION,
    tags: ['box'],
  });
  const machines = INSPECTORS.map((name) => {
    const inspector = new Machine(stack, name, { name });
    const sensors = new Module(inspector, 'sensors', { moduleId: 'acme:sensors', version: '~1.2' });
    const model = inspector.deployModel(job, { name: 'box-detector' });
    new ModularResource(inspector, 'mlmodel', {
      name: 'mlmodel',
      api: 'rdk:service:mlmodel',
      model: sensors.model('pi-board'),
      attributes: { model_path: `${model.path}/model.tflite` },
    });
    new Component(inspector, 'detections', {
      name: 'detections',
      api: 'rdk:component:sensor',
      model: sensors.model('hc-sr04'),
      serviceConfigs: CAPTURE,
    });
    return inspector;
  });
  new ModelPromotion(stack, 'box-detector-promotion', {
    model: job,
    rollout: {
      waves: [{ machines: [machines[0] as Machine] }, { fraction: 1 }],
      gate: { timeout: '30s', settle: '300ms' },
      analysis: [
        {
          name: 'confidence',
          metric: Metric.reading({ resource: 'detections', field: 'confidence', aggregate: 'mean' }),
          baseline: { minRatio: 0.9 },
          interval: '1s',
          count: 2,
        },
      ],
    },
    ...(allowRejected ? { allowRejected } : {}),
  });
  app.synth();
}

/** Sets every inspector's detections sensor to read a confidence of 0.9. */
export async function readConfidence(p: Pick<EmulatorProject, 'runBare'>): Promise<void> {
  for (const name of INSPECTORS) {
    const res = await p.runBare('emulator', 'sensor-reading', name, 'detections', '{"confidence": 0.9}');
    if (res.code !== 0) throw new Error(`sensor-reading ${name} failed: ${res.stdout}${res.stderr}`);
  }
}
