/**
 * Terraform writes an object into its state only after the provider answered the apply
 * (and persists state every so often, not at each answer): a Terraform or provider killed in
 * between leaves an object on the service that no state knows. So before each create the
 * provider records an intent, durably, as `fleetform apply` does in its own state: the
 * kind and the identity that names the object on the service (`ResourceKind.identity`),
 * and once the service answered, the ids it made. The next plan of a create with the same
 * identity finds the object by that intent (`ResourceKind.findCreated`, the engine's own
 * rule) and apply adopts it instead of creating another. An intent is dropped once a read
 * shows its object in Terraform's state, or once its create turned out to make nothing.
 *
 * Intents live in the project's `.fleetform/provider-intents/` (one file each, written
 * atomically and synced), so a runner without them cannot adopt: it gets an error naming
 * the `terraform import` command instead.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { stableStringify } from '../engine/provider-core';
import type { JsonObject } from '../domain/json-value';

/** One recorded create: what it was to make, and what it made once the service said so. */
export interface CreateIntent {
  readonly type: string;
  readonly key: JsonObject;
  /** The organization the create was made in: ids are the service's, names are per organization. */
  readonly organizationId: string;
  /** Milliseconds since the epoch when it was recorded. */
  readonly recordedAt: number;
  /** The ids the create made; absent until the service answered. */
  readonly ids?: Readonly<Record<string, string>>;
}

export class CreateIntents {
  constructor(
    private readonly dir: string,
    private readonly organizationId: string,
  ) {}

  private file(type: string, key: JsonObject): string {
    const digest = createHash('sha256')
      .update(stableStringify([this.organizationId, type, key]))
      .digest('hex')
      .slice(0, 32);
    return path.join(this.dir, `${type}-${digest}.json`);
  }

  /** The intent of a create of `type` naming `key`, if one was recorded here. */
  find(type: string, key: JsonObject): CreateIntent | undefined {
    try {
      const parsed = JSON.parse(fs.readFileSync(this.file(type, key), 'utf8')) as CreateIntent;
      return parsed.type === type && stableStringify(parsed.key) === stableStringify(key) ? parsed : undefined;
    } catch {
      return undefined;
    }
  }

  /** Records (or completes with its ids) the intent; durable when it returns. */
  record(type: string, key: JsonObject, ids?: Readonly<Record<string, string>>): void {
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const intent: CreateIntent = {
      type,
      key,
      organizationId: this.organizationId,
      recordedAt: Date.now(),
      ...(ids ? { ids: { ...ids } } : {}),
    };
    const target = this.file(type, key);
    const temp = `${target}.${process.pid}.tmp`;
    const fd = fs.openSync(temp, 'w', 0o600);
    try {
      fs.writeSync(fd, JSON.stringify(intent));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, target);
    const dirFd = fs.openSync(this.dir, 'r');
    try {
      fs.fsyncSync(dirFd);
    } finally {
      fs.closeSync(dirFd);
    }
  }

  /** Forgets the intent (its object is in Terraform's state, or its create made nothing). */
  drop(type: string, key: JsonObject): void {
    fs.rmSync(this.file(type, key), { force: true });
  }
}

/** Where a provider started in `projectDir` keeps its intents. */
export function intentsFolder(projectDir: string): string {
  return path.join(projectDir, '.fleetform', 'provider-intents');
}
