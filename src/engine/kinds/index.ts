import { KindRegistry, type ResourceKind } from '../kind';
import type { KindDeclaration } from '../kind-declaration';
import { datasetKind } from './dataset';
import { dataPipelineKind } from './data-pipeline';
import { fragmentKind } from './fragment';
import { fragmentReach } from './fragment-reach';
import { fragmentTagKind } from './fragment-tag';
import { locationKind } from './location';
import { machineKind } from './machine';
import { machinePartKind } from './machine-part';
import { mlModelKind } from './ml-model';
import { organizationDefaultsKind } from './organization-defaults';
import { customTrainingJobKind, trainingJobKind } from './training-job';

/** Every resource kind fleetform manages, in the order the reference docs list them. */
export const allKinds: readonly ResourceKind[] = [
  machineKind,
  machinePartKind,
  datasetKind,
  trainingJobKind,
  customTrainingJobKind,
  locationKind,
  mlModelKind,
  fragmentKind,
  fragmentTagKind,
  dataPipelineKind,
  organizationDefaultsKind,
];

/** The declaration of every kind: what a provider schema and the reference docs are built from. */
export const kindDeclarations: readonly KindDeclaration[] = allKinds.map((k) => k.declaration);

/** Every resource kind fleetform manages, by type, with what a fragment change does to the machines importing it. */
export function defaultKinds(): KindRegistry {
  return new KindRegistry(allKinds, [fragmentReach]);
}
