/**
 * State in PostgreSQL, for teams: one row per stack and workspace holding the state
 * document, the state log (the changes since it was last written) in rows beside it, and the
 * lock as a session advisory lock (the server releases it when its holder's connection
 * ends, so a killed run never leaves it behind) with who holds it in a row. A write is
 * refused when the stored state has moved past the writer's (another run got there first)
 * or belongs to another lineage, so no update is ever lost silently.
 */
import { createHash } from 'node:crypto';
import { Client, type ClientConfig } from 'pg';
import { FleetformError, errorMessage } from '../../domain/errors';
import { rolloutJournalKey } from '../../domain/rollout';
import { RolloutJournalSchema, type RolloutJournal, type RolloutJournalStore } from './rollout-journal';
import type { LockOptions, StateBackend, StateLock } from './backend';
import { lockedError, newLockInfo } from './holder-process';
import { emptyState, LockInfoSchema, recordedEntry, stateDocument, type LockInfo, type State, type StateEntry } from './schema';
import { stateTextChunks } from './state-text';

/** The state log's table; the stored name, as earlier versions created it. */
const STATE_LOG_TABLE = 'fleetform_journal';

/** Where a PostgreSQL backend keeps state: cdktf's PgBackend settings. */
export interface PgBackendSettings {
  /** libpq connection string; unset: PG_CONN_STR, else the usual PG* variables. */
  readonly connStr?: string;
  /** Schema holding fleetform's tables (default `terraform_remote_state`, as Terraform's pg backend). */
  readonly schemaName?: string;
  /** Terraform workspace the rows belong to (default `default`). */
  readonly workspace?: string;
}

export const DEFAULT_PG_SCHEMA = 'terraform_remote_state';

/** The database could not be reached or refused a statement. */
export class PgBackendError extends FleetformError {}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Connection settings without the password, for messages. */
function describeTarget(config: ClientConfig): string {
  if (config.connectionString) {
    try {
      const url = new URL(config.connectionString);
      url.password = '';
      return url.toString();
    } catch {
      return 'the configured connection string';
    }
  }
  return `${process.env.PGHOST ?? 'localhost'}:${process.env.PGPORT ?? '5432'}`;
}

export class PgStateBackend implements StateBackend {
  readonly description: string;
  private readonly config: ClientConfig;
  private readonly schema: string;
  private readonly workspace: string;
  private ready: Promise<void> | undefined;

  constructor(settings: PgBackendSettings, env: NodeJS.ProcessEnv = process.env) {
    const connStr = settings.connStr || env.PG_CONN_STR || undefined;
    this.config = connStr ? { connectionString: connStr } : {};
    this.schema = settings.schemaName || DEFAULT_PG_SCHEMA;
    this.workspace = settings.workspace || 'default';
    this.description = `pg (${describeTarget(this.config)}, schema ${this.schema})`;
  }

  private table(name: string): string {
    return `${quoteIdent(this.schema)}.${quoteIdent(name)}`;
  }

  /** Runs `work` on a connection of its own, closed afterwards; connection failures name the server. */
  private async withClient<T>(work: (client: Client) => Promise<T>): Promise<T> {
    const client = await this.connect();
    try {
      return await work(client);
    } catch (err) {
      throw this.explain(err);
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  private async connect(): Promise<Client> {
    const client = new Client({ ...this.config, connectionTimeoutMillis: 10_000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
    } catch (err) {
      await client.end().catch(() => undefined);
      throw this.explain(err);
    }
    await this.ensureTables(client);
    return client;
  }

  private explain(err: unknown): unknown {
    if (err instanceof FleetformError) return err;
    const message = errorMessage(err);
    return new PgBackendError(`PostgreSQL state backend at ${describeTarget(this.config)}: ${message}`, {
      hint: 'check that the server is running and the connection string (PgBackend connStr, PG_CONN_STR or PG* variables); nothing was lost: state written so far stays in the database',
    });
  }

  /** Creates the schema and tables once per backend (concurrent runs serialize on a transaction lock). */
  private ensureTables(client: Client): Promise<void> {
    this.ready ??= (async () => {
      await client.query('BEGIN');
      try {
        await client.query('SELECT pg_advisory_xact_lock($1)', [advisoryKey('fleetform-schema', this.schema, '')]);
        await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(this.schema)}`);
        await client.query(`CREATE TABLE IF NOT EXISTS ${this.table('fleetform_states')} (
          stack text NOT NULL, workspace text NOT NULL, lineage text NOT NULL, serial bigint NOT NULL,
          document text NOT NULL, updated_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (stack, workspace))`);
        await client.query(`CREATE TABLE IF NOT EXISTS ${this.table(STATE_LOG_TABLE)} (
          id bigserial PRIMARY KEY, stack text NOT NULL, workspace text NOT NULL, lineage text NOT NULL,
          serial bigint NOT NULL, address text NOT NULL, entry text)`);
        await client.query(`CREATE TABLE IF NOT EXISTS ${this.table('fleetform_rollouts')} (
          key text NOT NULL, workspace text NOT NULL, stack text NOT NULL, document text NOT NULL,
          updated_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (key, workspace))`);
        await client.query(`CREATE TABLE IF NOT EXISTS ${this.table('fleetform_locks')} (
          stack text NOT NULL, workspace text NOT NULL, info text NOT NULL, backend_pid integer NOT NULL, PRIMARY KEY (stack, workspace))`);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        this.ready = undefined;
        throw err;
      }
    })();
    return this.ready;
  }

  async read(stack: string): Promise<State> {
    return this.withClient(async (client) => {
      const row = await client.query<{ document: string }>(
        `SELECT document FROM ${this.table('fleetform_states')} WHERE stack = $1 AND workspace = $2`,
        [stack, this.workspace],
      );
      const state = row.rows[0] ? this.parseDocument(stack, row.rows[0].document) : emptyState(stack);
      const stateLog = await client.query<{ lineage: string; serial: string; address: string; entry: string | null }>(
        `SELECT lineage, serial, address, entry FROM ${this.table(STATE_LOG_TABLE)} WHERE stack = $1 AND workspace = $2 ORDER BY id`,
        [stack, this.workspace],
      );
      const fresh = state.serial === 0 && Object.keys(state.resources).length === 0;
      const written = state.serial;
      for (const [i, line] of stateLog.rows.entries()) {
        if (fresh && i === 0) state.lineage = line.lineage;
        const serial = Number(line.serial);
        if (line.lineage !== state.lineage || serial <= written) continue;
        if (line.entry === null) delete state.resources[line.address];
        else
          state.resources[line.address] = recordedEntry(
            JSON.parse(line.entry),
            `the state log of stack ${stack} in ${this.description}, ${line.address}`,
          );
        state.serial = Math.max(state.serial, serial);
      }
      return state;
    });
  }

  /** Rollout journals as rows of the workspace, one per key (a stack's rollout, or one of its fragments'). */
  rolloutJournals(): RolloutJournalStore {
    const parse = (key: string, text: string): RolloutJournal => {
      const parsed = RolloutJournalSchema.safeParse(JSON.parse(text));
      if (!parsed.success) {
        throw new FleetformError(`the rollout journal ${key} in ${this.description} is not readable`, {
          path: key,
          hint: 'delete its row to start the rollout afresh',
        });
      }
      return parsed.data;
    };
    return {
      read: (key) =>
        this.withClient(async (client) => {
          const row = await client.query<{ document: string }>(
            `SELECT document FROM ${this.table('fleetform_rollouts')} WHERE key = $1 AND workspace = $2`,
            [key, this.workspace],
          );
          return row.rows[0] ? parse(key, row.rows[0].document) : undefined;
        }),
      list: (stack) =>
        this.withClient(async (client) => {
          const rows = await client.query<{ key: string; document: string }>(
            `SELECT key, document FROM ${this.table('fleetform_rollouts')} WHERE stack = $1 AND workspace = $2 ORDER BY key`,
            [stack, this.workspace],
          );
          return rows.rows.map((r) => parse(r.key, r.document));
        }),
      write: (journal) =>
        this.withClient(async (client) => {
          await client.query(
            `INSERT INTO ${this.table('fleetform_rollouts')} (key, workspace, stack, document, updated_at) VALUES ($1, $2, $3, $4, now())
             ON CONFLICT (key, workspace) DO UPDATE SET stack = EXCLUDED.stack, document = EXCLUDED.document, updated_at = now()`,
            [rolloutJournalKey(journal.stack, journal.plan.policy), this.workspace, journal.stack, JSON.stringify(journal)],
          );
        }),
    };
  }

  private parseDocument(stack: string, text: string): State {
    const where = `${this.description} stack ${stack}`;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new FleetformError(`the state of stack ${stack} in ${this.description} is not valid JSON`, {
        path: where,
        hint: 'restore it from a database backup',
      });
    }
    return stateDocument(parsed, `the state of stack ${stack} in ${this.description}`, where);
  }

  async record(state: State, changes: ReadonlyMap<string, StateEntry | null>): Promise<void> {
    await this.withClient(async (client) => {
      await client.query('BEGIN');
      try {
        for (const [address, entry] of changes) {
          await client.query(
            `INSERT INTO ${this.table(STATE_LOG_TABLE)} (stack, workspace, lineage, serial, address, entry) VALUES ($1, $2, $3, $4, $5, $6)`,
            [state.stack, this.workspace, state.lineage, state.serial, address, entry === null ? null : JSON.stringify(entry)],
          );
        }
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    });
  }

  async write(state: State): Promise<void> {
    await this.withClient(async (client) => {
      await client.query('BEGIN');
      try {
        const current = await client.query<{ lineage: string; serial: string }>(
          `SELECT lineage, serial FROM ${this.table('fleetform_states')} WHERE stack = $1 AND workspace = $2 FOR UPDATE`,
          [state.stack, this.workspace],
        );
        const row = current.rows[0];
        if (row && row.lineage !== state.lineage) {
          throw new FleetformError(
            `refusing to overwrite the state of stack ${state.stack}: the database holds another lineage (${row.lineage}, this run has ${state.lineage})`,
            {
              path: `${this.description} stack ${state.stack}`,
              hint: 'another project writes to the same stack name and workspace: use another schema_name or stack name',
            },
          );
        }
        if (row && Number(row.serial) >= state.serial) {
          throw new FleetformError(
            `refusing to overwrite the state of stack ${state.stack}: it moved to serial ${row.serial} while this run had ${state.serial}`,
            {
              path: `${this.description} stack ${state.stack}`,
              hint: 'another run changed it meanwhile (without holding the lock); plan again',
            },
          );
        }
        const document = [...stateTextChunks(state)].join('');
        await client.query(
          `INSERT INTO ${this.table('fleetform_states')} (stack, workspace, lineage, serial, document, updated_at) VALUES ($1, $2, $3, $4, $5, now())
           ON CONFLICT (stack, workspace) DO UPDATE SET lineage = EXCLUDED.lineage, serial = EXCLUDED.serial, document = EXCLUDED.document, updated_at = now()`,
          [state.stack, this.workspace, state.lineage, state.serial, document],
        );
        await client.query(`DELETE FROM ${this.table(STATE_LOG_TABLE)} WHERE stack = $1 AND workspace = $2`, [state.stack, this.workspace]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    });
  }

  /** Stacks with a state or state log rows in this workspace. */
  async stacks(): Promise<string[]> {
    return this.withClient(async (client) => {
      const rows = await client.query<{ stack: string }>(
        `SELECT stack FROM ${this.table('fleetform_states')} WHERE workspace = $1 UNION SELECT stack FROM ${this.table(STATE_LOG_TABLE)} WHERE workspace = $1 ORDER BY stack`,
        [this.workspace],
      );
      return rows.rows.map((r) => r.stack);
    });
  }

  /** Stacks whose lock is held now. */
  async lockedStacks(): Promise<string[]> {
    return this.withClient(async (client) => {
      const rows = await client.query<{ stack: string; backend_pid: number }>(
        `SELECT stack, backend_pid FROM ${this.table('fleetform_locks')} WHERE workspace = $1`,
        [this.workspace],
      );
      const held: string[] = [];
      for (const r of rows.rows) if (await this.advisoryHeld(client, r.stack)) held.push(r.stack);
      return held.sort();
    });
  }

  private key(stack: string): string {
    return advisoryKey('fleetform-state', this.schema, `${stack}\u0000${this.workspace}`);
  }

  private async advisoryHeld(client: Client, stack: string): Promise<boolean> {
    const key = BigInt(this.key(stack));
    const high = Number((key >> 32n) & 0xffffffffn);
    const low = Number(key & 0xffffffffn);
    const rows = await client.query(
      `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1 AND classid::bigint = $1 AND objid::bigint = $2`,
      [high, low],
    );
    return (rows.rowCount ?? 0) > 0;
  }

  async lockHolder(stack: string): Promise<LockInfo | undefined> {
    return this.withClient(async (client) => {
      if (!(await this.advisoryHeld(client, stack))) return undefined;
      return this.recordedHolder(client, stack);
    });
  }

  private async recordedHolder(client: Client, stack: string): Promise<LockInfo | undefined> {
    const rows = await client.query<{ info: string }>(
      `SELECT info FROM ${this.table('fleetform_locks')} WHERE stack = $1 AND workspace = $2`,
      [stack, this.workspace],
    );
    const text = rows.rows[0]?.info;
    if (!text) return undefined;
    const parsed = LockInfoSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  }

  async lock(stack: string, operation: string, options: LockOptions): Promise<StateLock> {
    // The lock lives as long as this connection: it is kept open until release.
    const client = await this.connect();
    const info = newLockInfo(operation);
    try {
      const key = this.key(stack);
      let taken: boolean;
      if (options.timeoutMs > 0) {
        await client.query(`SET lock_timeout = ${Math.ceil(options.timeoutMs)}`);
        taken = await client.query('SELECT pg_advisory_lock($1)', [key]).then(
          () => true,
          (err: unknown) => {
            if ((err as { code?: string }).code === '55P03') return false;
            throw err;
          },
        );
        await client.query('SET lock_timeout = 0');
      } else {
        taken = (await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [key])).rows[0]?.ok === true;
      }
      if (!taken) {
        const holder = await this.recordedHolder(client, stack);
        throw lockedError(
          stack,
          `${this.description} stack ${stack}`,
          holder,
          `if it hangs: fleetform force-unlock ${holder?.id ?? ''} (ends the holder's database session)`,
          'another run',
        );
      }
      await client.query(
        `INSERT INTO ${this.table('fleetform_locks')} (stack, workspace, info, backend_pid) VALUES ($1, $2, $3, pg_backend_pid())
         ON CONFLICT (stack, workspace) DO UPDATE SET info = EXCLUDED.info, backend_pid = EXCLUDED.backend_pid`,
        [stack, this.workspace, JSON.stringify(info)],
      );
    } catch (err) {
      await client.end().catch(() => undefined);
      throw this.explain(err);
    }
    return {
      info,
      release: async () => {
        try {
          await client.query(
            `DELETE FROM ${this.table('fleetform_locks')} WHERE stack = $1 AND workspace = $2 AND backend_pid = pg_backend_pid()`,
            [stack, this.workspace],
          );
          await client.query('SELECT pg_advisory_unlock($1)', [this.key(stack)]);
        } catch {
          // The session is gone: the server has released the lock with it.
        } finally {
          await client.end().catch(() => undefined);
        }
      },
    };
  }

  /** Ends the holder's database session, which releases its lock. */
  async forceUnlock(stack: string, lockId: string): Promise<void> {
    await this.withClient(async (client) => {
      const rows = await client.query<{ info: string; backend_pid: number }>(
        `SELECT info, backend_pid FROM ${this.table('fleetform_locks')} WHERE stack = $1 AND workspace = $2`,
        [stack, this.workspace],
      );
      const row = rows.rows[0];
      const holder = row ? LockInfoSchema.safeParse(JSON.parse(row.info)) : undefined;
      if (!row || !holder?.success || !(await this.advisoryHeld(client, stack))) {
        throw new FleetformError(`stack "${stack}" is not locked`, { hint: 'nothing to unlock' });
      }
      if (holder.data.id !== lockId) {
        throw new FleetformError(`lock ID ${lockId} does not match the lock held on stack "${stack}"`, {
          hint: `the current lock ID is ${holder.data.id} (${holder.data.who}, "${holder.data.operation}")`,
        });
      }
      await client.query('SELECT pg_terminate_backend($1)', [row.backend_pid]);
      await client.query(`DELETE FROM ${this.table('fleetform_locks')} WHERE stack = $1 AND workspace = $2`, [stack, this.workspace]);
    });
  }
}

/** A 64-bit advisory lock key (as decimal text) from the names it stands for. */
function advisoryKey(kind: string, schema: string, name: string): string {
  const digest = createHash('sha256').update(`${kind}\u0000${schema}\u0000${name}`).digest();
  return digest.readBigInt64BE(0).toString();
}
