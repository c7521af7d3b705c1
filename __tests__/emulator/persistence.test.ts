/** Everything survives a restart; migrations run once; the job listing stays indexed at 100,000 jobs. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { createClient } from '@connectrpc/connect';
import { EmulatorService } from '../../src/api/emulator-control';
import { DatasetService, loadServices, type Services } from '../../src/api/services';
import { ModelType, TrainingStatus } from '../../src/domain';
import { DATABASE_FILE, startEmulator } from '../../src/emulator';
import { migrate, openDatabase } from '../../src/emulator/db/database';
import { MIGRATIONS } from '../../src/emulator/db/migrations';
import { scratchDirs } from './fixture';
import { clientOf, codeOf, newMachine, sensorsConfig, tokenFor, transport } from './helpers';

let services: Services;
beforeAll(async () => {
  services = await loadServices();
});
const newDir = scratchDirs();

/** A training duration no test outlives: jobs stay where the test put them. */
const CENTURY_MS = 100 * 365 * 24 * 3600 * 1000;

test('machines, configs, deployments, datasets, jobs, keys, tokens and registry versions survive a restart', async () => {
  const dataDir = newDir();
  // A training duration of a century keeps the job IN_PROGRESS across the restart (a frozen
  // clock would give every record the same instant, and listings sorted by time a random order).
  const first = await startEmulator({ dataDir, port: 0, trainingDurationMs: CENTURY_MS });
  const app = await clientOf(first, services.app);
  const ml = await clientOf(first, services.mlTraining);
  const controls = await clientOf(first, EmulatorService);
  const ds = await clientOf(first, DatasetService);

  const m = await newMachine(app, first.credentials.locationId, 'durable');
  const config = sensorsConfig([{ name: 'acme_sensors', version: '~1.2' }]);
  const { part } = await app.updateRobotPart({
    id: m.partId,
    name: m.partName,
    robotConfig: services.sdk.Struct.fromJson(config as never),
  });
  await controls.publishModuleVersion({ moduleId: 'acme:sensors', version: '1.2.9' });
  const { id: datasetId } = await ds.createDataset({ name: 'durable-set', organizationId: first.credentials.organizationId });
  const { id: jobId } = await ml.submitTrainingJob({
    organizationId: first.credentials.organizationId,
    datasetId,
    modelName: 'durable',
    modelVersion: '1',
    modelType: ModelType.OBJECT_DETECTION,
    tags: ['a'],
  });
  await controls.advanceTrainingJob({ id: jobId });
  const jobBefore = (await ml.getTrainingJob({ id: jobId })).metadata;
  const key = await app.createKey({
    authorizations: [{ authorizationType: 'role', authorizationId: 'robot_owner', resourceType: 'robot', resourceId: m.robotId }],
  });
  const token = await tokenFor(first.url, first.credentials.apiKeyId, first.credentials.apiKey);
  const cardsBefore = (await controls.listModuleCards({})).cards;
  await first.close();

  const second = await startEmulator({ dataDir, port: 0, trainingDurationMs: CENTURY_MS });
  try {
    expect(second.credentials).toEqual(first.credentials);
    // A token issued before the restart still works.
    const app2 = createClient(services.app, transport(second.url, 'grpc-web', { authorization: `Bearer ${token}` }));
    expect((await app2.listOrganizations({})).organizations.map((o) => o.id)).toEqual([first.credentials.organizationId]);
    const got = await app2.getRobotPart({ id: m.partId });
    expect(services.sdk.Struct.fromBinary(got.part?.robotConfig ?? new Uint8Array()).toJson()).toEqual(config);
    expect(JSON.parse(got.configJson)).toEqual(config);
    expect(got.part?.lastUpdated?.toDate().getTime()).toBe(part?.lastUpdated?.toDate().getTime());
    const controls2 = await clientOf(second, EmulatorService);
    const cardsAfter = (await controls2.listModuleCards({})).cards;
    expect(cardsAfter.map((c) => c.toJson())).toEqual(cardsBefore.map((c) => c.toJson()));
    expect(cardsAfter[0]).toMatchObject({ deployedVersion: '1.2.9', restartCount: 1 });
    const ml2 = await clientOf(second, services.mlTraining);
    expect((await ml2.getTrainingJob({ id: jobId })).metadata?.toJson()).toEqual(jobBefore?.toJson());
    expect((await ml2.getTrainingJobLogs({ id: jobId })).logs).toHaveLength(2);
    const ds2 = await clientOf(second, DatasetService);
    const names = (await ds2.listDatasetsByOrganizationID({ organizationId: first.credentials.organizationId })).datasets.map(
      (d: { name: string }) => d.name,
    );
    expect(names).toEqual(['default', 'durable-set']);
    const scoped = await clientOf(second, services.app, { credentials: { apiKeyId: key.id, apiKey: key.key } });
    expect((await scoped.getRobot({ id: m.robotId })).robot?.name).toBe('durable');
    const versions = (await app2.getModule({ moduleId: 'acme:sensors' })).module?.versions.map((v) => v.version);
    expect(versions).toContain('1.2.9');
    expect(versions?.filter((v) => v === '1.2.9')).toHaveLength(1);
  } finally {
    await second.close();
  }
});

test('seeding happens once; a lost credentials.json gets a fresh owner key and the old key keeps working', async () => {
  const dataDir = newDir();
  const first = await startEmulator({ dataDir, port: 0 });
  await first.close();
  fs.rmSync(path.join(dataDir, 'credentials.json'));
  const second = await startEmulator({ dataDir, port: 0 });
  try {
    expect(second.credentials.apiKeyId).not.toBe(first.credentials.apiKeyId);
    expect({ ...second.credentials, apiKeyId: '', apiKey: '' }).toEqual({ ...first.credentials, apiKeyId: '', apiKey: '' });
    expect(fs.statSync(path.join(dataDir, 'credentials.json')).mode & 0o777).toBe(0o600);
    const app = await clientOf(second, services.app);
    expect((await app.listOrganizations({})).organizations).toHaveLength(1);
    const old = await clientOf(second, services.app, { credentials: first.credentials });
    expect(await codeOf(old.listOrganizations({}))).toBe('ok');
  } finally {
    await second.close();
  }
});

test('migrations are recorded and run once; later ones apply on the next open', () => {
  const dataDir = newDir();
  openDatabase(dataDir).close();
  const db = openDatabase(dataDir);
  try {
    const rows = db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all();
    expect(rows).toEqual(MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
    const next = { version: 1000, name: 'test addition', sql: 'CREATE TABLE test_addition (x INTEGER)' };
    expect(migrate(db, [...MIGRATIONS, next])).toEqual([1000]);
    expect(migrate(db, [...MIGRATIONS, next])).toEqual([]);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
  } finally {
    db.close();
  }
});

test("listing an organization's jobs by status uses an index and stays correct at 100,000 jobs", async () => {
  const dataDir = newDir();
  const boot = await startEmulator({ dataDir, port: 0 });
  const { organizationId, datasetId } = boot.credentials;
  await boot.close();

  const db = new Database(path.join(dataDir, DATABASE_FILE));
  const statuses = [TrainingStatus.PENDING, TrainingStatus.IN_PROGRESS, TrainingStatus.COMPLETED, TrainingStatus.CANCELED];
  try {
    const insert = db.prepare(
      `INSERT INTO training_jobs (id, organization_id, dataset_id, model_name, model_version, model_type, model_framework,
        is_custom_job, registry_item_id, registry_item_version, status, created_on, last_modified, synced_model_id, tags, arguments, container_version)
       VALUES (?, ?, ?, 'bulk', ?, 3, 1, 0, '', '', ?, ?, ?, '', '[]', '{}', 'default')`,
    );
    db.transaction(() => {
      for (let i = 0; i < 100_000; i++) {
        // 8 jobs fail (every 14,000th); the rest spread over four statuses.
        const status = i % 14_000 === 0 ? TrainingStatus.FAILED : (statuses[i % statuses.length] ?? 1);
        insert.run(`bulk-${i}`, organizationId, datasetId, String(i), status, 1_700_000_000_000 + i, 1_700_000_000_000 + i);
      }
    })();
    const plan = (sql: string, ...params: unknown[]) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail).join('\n');
    const byStatus = plan(
      'SELECT * FROM training_jobs WHERE organization_id = ? AND status = ? ORDER BY created_on DESC, id DESC',
      organizationId,
      TrainingStatus.FAILED,
    );
    expect(byStatus).toMatch(/USING INDEX training_jobs_by_org_status/);
    expect(byStatus).not.toMatch(/^SCAN training_jobs$/m);
    const all = plan('SELECT * FROM training_jobs WHERE organization_id = ? ORDER BY created_on DESC, id DESC', organizationId);
    expect(all).toMatch(/USING INDEX training_jobs_by_org/);
  } finally {
    db.close();
  }

  // The bulk jobs date from 2023: a training duration of a century keeps them in their statuses.
  const again = await startEmulator({ dataDir, port: 0, trainingDurationMs: CENTURY_MS });
  try {
    const ml = await clientOf(again, services.mlTraining);
    const failed = (await ml.listTrainingJobs({ organizationId, status: TrainingStatus.FAILED })).jobs;
    expect(failed).toHaveLength(8);
    expect(failed.every((j) => j.status === TrainingStatus.FAILED)).toBe(true);
    expect(failed.map((j) => j.modelVersion)).toEqual(['98000', '84000', '70000', '56000', '42000', '28000', '14000', '0']);
  } finally {
    await again.close();
  }
});
