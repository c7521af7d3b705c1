/**
 * Module deployments: for every registry module in a part's config, the update policy
 * (stored form), the version the machine runs and how often a version change restarted it.
 */
import type { Db } from '../db/database';
import { stmt } from './statements';

export interface DeploymentRecord {
  readonly partId: string;
  readonly moduleName: string;
  readonly moduleId: string;
  readonly policy: string;
  readonly deployedVersion: string;
  readonly restartCount: number;
  readonly updatedAt: number;
}

interface Row {
  part_id: string;
  module_name: string;
  module_id: string;
  policy: string;
  deployed_version: string;
  restart_count: number;
  updated_at: number;
}
const toDeployment = (r: Row): DeploymentRecord => ({
  partId: r.part_id,
  moduleName: r.module_name,
  moduleId: r.module_id,
  policy: r.policy,
  deployedVersion: r.deployed_version,
  restartCount: r.restart_count,
  updatedAt: r.updated_at,
});

export function deploymentsOfPart(db: Db, partId: string): DeploymentRecord[] {
  return stmt<[string], Row>(db, 'SELECT * FROM module_deployments WHERE part_id = ? ORDER BY module_name').all(partId).map(toDeployment);
}

export function deploymentsOfModule(db: Db, moduleId: string): DeploymentRecord[] {
  return stmt<[string], Row>(db, 'SELECT * FROM module_deployments WHERE module_id = ? ORDER BY part_id, module_name')
    .all(moduleId)
    .map(toDeployment);
}

/** Replaces every deployment of a part. */
export function replaceDeployments(db: Db, partId: string, deployments: readonly DeploymentRecord[]): void {
  stmt<[string]>(db, 'DELETE FROM module_deployments WHERE part_id = ?').run(partId);
  const add = stmt<[string, string, string, string, string, number, number]>(
    db,
    `INSERT INTO module_deployments (part_id, module_name, module_id, policy, deployed_version, restart_count, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const d of deployments) add.run(partId, d.moduleName, d.moduleId, d.policy, d.deployedVersion, d.restartCount, d.updatedAt);
}

/** Moves one deployment to a version, counting a restart. */
export function moveDeployment(db: Db, d: DeploymentRecord, version: string, now: number): DeploymentRecord {
  stmt<[string, number, string, string]>(
    db,
    `UPDATE module_deployments SET deployed_version = ?, restart_count = restart_count + 1, updated_at = ?
     WHERE part_id = ? AND module_name = ?`,
  ).run(version, now, d.partId, d.moduleName);
  return { ...d, deployedVersion: version, restartCount: d.restartCount + 1, updatedAt: now };
}

/** A deployment with the machine it runs on. */
export interface PlacedDeployment extends DeploymentRecord {
  readonly partName: string;
  readonly machineId: string;
  readonly machineName: string;
  readonly locationId: string;
  readonly organizationId: string;
}

/** Every deployment on the machines of an organization, by machine, part and module name. */
export function deploymentsOfOrganization(db: Db, organizationId: string): PlacedDeployment[] {
  return stmt<
    [string],
    Row & { part_name: string; machine_id: string; machine_name: string; location_id: string; organization_id: string }
  >(
    db,
    `SELECT d.*, p.name AS part_name, r.id AS machine_id, r.name AS machine_name, l.id AS location_id, l.organization_id
     FROM module_deployments d
     JOIN robot_parts p ON p.id = d.part_id
     JOIN robots r ON r.id = p.robot_id
     JOIN locations l ON l.id = r.location_id
     WHERE l.organization_id = ?
     ORDER BY r.name, p.name, d.module_name`,
  )
    .all(organizationId)
    .map((r) => ({
      ...toDeployment(r),
      partName: r.part_name,
      machineId: r.machine_id,
      machineName: r.machine_name,
      locationId: r.location_id,
      organizationId: r.organization_id,
    }));
}
