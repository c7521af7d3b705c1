/**
 * The containers the emulator's service lists for custom training jobs: prebuilt training
 * images of the frameworks a training script is written for, each with its end of life.
 * `tf:2.15` is past its end of life; the others are supported.
 */
import type { TrainingContainer } from '../../domain';

/** Container version recorded when a job names none. */
export const DEFAULT_CONTAINER_VERSION = 'default';

export const SUPPORTED_CONTAINERS: readonly TrainingContainer[] = [
  {
    key: 'tf:2.15',
    uri: 'us-docker.pkg.dev/vertex-ai/training/tf-gpu.2-15.py310:latest',
    framework: 'tensorflow',
    description: 'Tensorflow 2.15',
    eol: new Date('2026-03-03T00:00:00Z'),
  },
  {
    key: 'tf:2.17',
    uri: 'us-docker.pkg.dev/vertex-ai/training/tf-gpu.2-17.py310:latest',
    framework: 'tensorflow',
    description: 'Tensorflow 2.17',
    eol: new Date('2030-06-01T00:00:00Z'),
  },
  {
    key: 'pytorch:2.4',
    uri: 'us-docker.pkg.dev/vertex-ai/training/pytorch-gpu.2-4.py310:latest',
    framework: 'pytorch',
    description: 'PyTorch 2.4',
    eol: new Date('2030-09-01T00:00:00Z'),
  },
  {
    key: 'sklearn:1.5',
    uri: 'us-docker.pkg.dev/vertex-ai/training/sklearn-cpu.1-5:latest',
    framework: 'scikit-learn',
    description: 'scikit-learn 1.5',
  },
];

/** Whether a job naming `version` can start: the service's default (none named) or a listed container. */
export function containerRunnable(version: string): boolean {
  return version === '' || version === DEFAULT_CONTAINER_VERSION || SUPPORTED_CONTAINERS.some((c) => c.key === version);
}
