/**
 * What a new emulator holds: one organization (public namespace `acme`) with a location, a
 * dataset and an owner API key, and the registry the example stacks use (the modules and
 * training scripts they name). Seeding happens once per data folder; the credentials file is rewritten with
 * a fresh owner key when it has gone missing (the key secret is only ever stored hashed).
 */
import { ModelFramework, ModelType } from '../domain';
import type { EmulatorCredentials } from './credentials';
import { readCredentials, writeCredentials } from './credentials';
import type { Db } from './db/database';
import { createOrganization, createOwnerKey } from './rpc/organizations';
import { publishModuleVersion, publishTrainingScript } from './rpc/publish';
import { getMeta, setMeta } from './store/accounts';

export const SEED_ORGANIZATION = { name: 'Acme Robotics', publicNamespace: 'acme', locationName: 'Main location', datasetName: 'default' };

/** The seeded registry modules: id, description, versions (ascending) and the models every version provides. */
export const SEED_MODULES: readonly {
  readonly moduleId: string;
  readonly description: string;
  readonly versions: readonly string[];
  readonly models: readonly { readonly api: string; readonly model: string }[];
}[] = [
  {
    moduleId: 'acme:sensors',
    description: 'Boards, ultrasonic sensors and multi-cameras',
    versions: ['1.1.0', '1.2.0', '1.2.3', '1.2.4', '1.2.5', '1.3.0', '2.0.0-rc.1'],
    models: [
      { api: 'rdk:component:board', model: 'acme:sensors:pi-board' },
      { api: 'rdk:component:sensor', model: 'acme:sensors:hc-sr04' },
      { api: 'rdk:component:camera', model: 'acme:sensors:multi-cam' },
    ],
  },
  {
    moduleId: 'acme:vision',
    description: 'Vision services',
    versions: ['0.9.0', '1.0.0', '1.0.1'],
    models: [{ api: 'rdk:service:vision', model: 'acme:vision:box-finder' }],
  },
  {
    moduleId: 'acme:arm-control',
    description: 'Arm control',
    versions: ['3.0.0', '3.1.0'],
    models: [{ api: 'rdk:component:arm', model: 'acme:arm-control:six-axis' }],
  },
];

/** The seeded training script; its jobs train TFLite object detection models. */
export const SEED_TRAINING_SCRIPT = {
  itemId: 'acme:trainer',
  description: 'Custom training script',
  versions: ['0.2.0', '0.3.0'],
  modelType: ModelType.OBJECT_DETECTION,
  modelFramework: ModelFramework.TFLITE,
} as const;

const META_SEEDED = 'seeded';

/** Seeds a new database and returns the credentials of the seeded organization (writing credentials.json when needed). */
export function ensureSeeded(db: Db, dataDir: string, now: number): EmulatorCredentials {
  // Emulators of one data folder may start at once (one per stack under `cdktf deploy`): the
  // check, the seed and the credentials file happen under one write lock, so exactly one seeds
  // and the others find its organization and its key file.
  return db.transaction(() => seedOnce(db, dataDir, now)).immediate();
}

function seedOnce(db: Db, dataDir: string, now: number): EmulatorCredentials {
  const seeded = getMeta(db, META_SEEDED);
  if (seeded !== undefined) {
    const known = readCredentials(dataDir);
    if (known) return known;
    // The file went missing: issue a new owner key for the seeded organization.
    const ids = JSON.parse(seeded) as Omit<EmulatorCredentials, 'apiKeyId' | 'apiKey'>;
    const creds = { ...createOwnerKey(db, ids.organizationId, 'owner key (reissued)', now), ...ids };
    writeCredentials(dataDir, creds);
    return creds;
  }
  const creds = db.transaction(() => {
    const c = createOrganization(db, SEED_ORGANIZATION, now);
    for (const m of SEED_MODULES) {
      for (const version of m.versions) {
        publishModuleVersion(db, 'seed', { moduleId: m.moduleId, version, models: m.models, description: m.description }, now);
      }
    }
    for (const version of SEED_TRAINING_SCRIPT.versions) {
      publishTrainingScript(db, 'seed', { ...SEED_TRAINING_SCRIPT, version }, now);
    }
    setMeta(db, META_SEEDED, JSON.stringify({ organizationId: c.organizationId, locationId: c.locationId, datasetId: c.datasetId }));
    return c;
  })();
  writeCredentials(dataDir, creds);
  return creds;
}
