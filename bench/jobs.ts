/**
 * Listing training jobs by status in an organization holding 100,000 jobs. The jobs are
 * written straight into the emulator's SQLite file (a second connection; WAL allows it).
 */
import Database from 'better-sqlite3';
import * as path from 'node:path';
import type { ServiceClient } from '../src/api/client';
import { TrainingStatus, trainingStatusName } from '../src/domain';
import { DATABASE_FILE } from '../src/emulator';
import { medianOf, r3 } from './stats';

/** Share of jobs per status (sums to 1). */
const MIX: ReadonlyArray<readonly [TrainingStatus, number]> = [
  [TrainingStatus.PENDING, 0.02],
  [TrainingStatus.IN_PROGRESS, 0.03],
  [TrainingStatus.COMPLETED, 0.8],
  [TrainingStatus.FAILED, 0.1],
  [TrainingStatus.CANCELED, 0.05],
];

/** Inserts `count` jobs of the organization, spread over the statuses of MIX. */
export function insertJobs(dataDir: string, organizationId: string, datasetId: string, count: number): void {
  const db = new Database(path.join(dataDir, DATABASE_FILE));
  db.pragma('busy_timeout = 5000');
  const insert =
    db.prepare(`INSERT INTO training_jobs (id, organization_id, dataset_id, model_name, model_version, model_type, model_framework,
    is_custom_job, registry_item_id, registry_item_version, status, error_code, error_message, created_on, last_modified, training_started,
    training_ended, synced_model_id, tags, arguments, container_version) VALUES (?, ?, ?, ?, ?, 3, 1, 0, '', '', ?, ?, ?, ?, ?, ?, ?, '', ?, '{}', '')`);
  const start = Date.now() - count * 1000;
  db.transaction(() => {
    let i = 0;
    for (const [status, share] of MIX) {
      const n = Math.round(count * share);
      for (let k = 0; k < n && i < count; k++, i++) {
        const t = start + i * 1000;
        const failed = status === TrainingStatus.FAILED;
        insert.run(
          crypto.randomUUID(),
          organizationId,
          datasetId,
          `model-${i % 500}`,
          `v${i}`,
          status,
          failed ? 13 : null,
          failed ? 'out of memory' : null,
          t,
          t + 500,
          status === TrainingStatus.PENDING ? null : t + 100,
          status >= TrainingStatus.COMPLETED ? t + 400 : null,
          JSON.stringify(['bench', `batch-${i % 7}`]),
        );
      }
    }
  })();
  db.close();
}

/** Median seconds and result size of listing the jobs of each status, and of all. */
export async function measureListJobs(
  client: ServiceClient,
  organizationId: string,
  runs: number,
): Promise<Record<string, { seconds: number; jobs: number }>> {
  const out: Record<string, { seconds: number; jobs: number }> = {};
  for (const status of [...MIX.map(([s]) => s), undefined]) {
    let jobs = 0;
    const seconds = await medianOf(runs, async () => {
      jobs = (await client.mlTrainingClient.listTrainingJobs(organizationId, status)).length;
    });
    out[status === undefined ? 'ALL' : trainingStatusName(status)] = { seconds: r3(seconds), jobs };
  }
  return out;
}
