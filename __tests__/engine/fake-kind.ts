import { z } from 'zod';
import type { ServiceClient } from '../../src/api/client';
import { FleetformError } from '../../src/domain/errors';
import type { Applied, DesiredValue, Judgement, KindContext, Observation, ResourceKind } from '../../src/engine/kind';
import { defineKind, type ViewOf } from '../../src/engine/kind-declaration';

/**
 * A resource kind without a service: notes kept in memory. It is the worked example of
 * docs/adding-a-kind.md and lets the planner and the executor be tested on their own.
 */
export const noteDeclaration = defineKind({
  type: 'fleetform_note',
  description: 'A note kept in memory: a title, a text and a secret.',
  attributes: {
    title: {
      schema: z.string().min(1, 'a note needs a title'),
      description: 'Title of the note; a new title makes a new note.',
      forcesReplacement: true,
    },
    text: { schema: z.string().optional(), description: 'Body of the note.', computed: 'when-unset', serviceDefault: 'empty' },
    secret: { schema: z.string().optional(), description: 'A value never shown in clear.', sensitive: true },
    parent_id: { schema: z.string().optional(), description: 'Id of another note this one follows.' },
    id: { schema: z.string(), description: 'Id the store assigns.', computed: 'always' },
  },
});

type NoteView = ViewOf<typeof noteDeclaration>;

/** A note as the in-memory store holds it. */
export interface StoredNote {
  readonly id: string;
  readonly title: string;
  readonly text: string;
  readonly secret?: string;
  readonly parentId?: string;
  readonly version: number;
}

/** A promise with its resolver: what a test waits on, or what holds an operation until the test lets it go. */
export interface Gate {
  readonly promise: Promise<void>;
  open(): void;
}

export function gate(): Gate {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/**
 * The in-memory store behind the fake kind: it logs every write, counts the writes in
 * flight (and the most at once), fails the operations a test names and can hold creates
 * until the test opens their gate.
 */
export class NoteStore {
  readonly notes = new Map<string, StoredNote>();
  readonly log: string[] = [];
  inFlight = 0;
  peakInFlight = 0;
  private next = 1;
  /** `create:<title>`, `update:<title>`, `delete:<title>`, `observe:<id>`, or `create-after-checkpoint:<title>`. */
  readonly failOn = new Set<string>();
  /** Creates of these titles wait for their gate. */
  readonly holds = new Map<string, Gate>();
  private readonly startWaiters: Array<{ count: number; gate: Gate }> = [];
  private started = 0;

  /** Resolves once `count` writes have started in all. */
  startedAtLeast(count: number): Promise<void> {
    if (this.started >= count) return Promise.resolve();
    const g = gate();
    this.startWaiters.push({ count, gate: g });
    return g.promise;
  }

  async write<T>(op: string, title: string, work: () => T): Promise<T> {
    this.inFlight += 1;
    this.peakInFlight = Math.max(this.peakInFlight, this.inFlight);
    this.started += 1;
    for (const w of this.startWaiters.filter((x) => x.count <= this.started)) w.gate.open();
    try {
      const held = op === 'create' ? this.holds.get(title) : undefined;
      if (held) await held.promise;
      else await Promise.resolve();
      if (this.failOn.has(`${op}:${title}`)) throw new FleetformError(`the store refused to ${op} ${title}`);
      this.log.push(`${op}:${title}`);
      return work();
    } finally {
      this.inFlight -= 1;
    }
  }

  newId(): string {
    return `note-${this.next++}`;
  }
}

function viewOf(note: StoredNote): NoteView {
  return {
    title: note.title,
    text: note.text,
    ...(note.secret !== undefined ? { secret: note.secret } : {}),
    ...(note.parentId !== undefined ? { parent_id: note.parentId } : {}),
  };
}

/** The fake kind over a store; `replaceOrder` is the test's choice. */
export function noteKind(
  store: NoteStore,
  replaceOrder: 'create-first' | 'delete-first' = 'delete-first',
): ResourceKind<typeof noteDeclaration> {
  const stored = (id: string | undefined): StoredNote | undefined => (id ? store.notes.get(id) : undefined);
  return {
    type: noteDeclaration.type,
    declaration: noteDeclaration,
    replaceOrder,

    async desire(_ctx, a): Promise<DesiredValue<NoteView>> {
      const view: NoteView = {
        title: a.title,
        text: a.text ?? '',
        ...(a.secret !== undefined ? { secret: a.secret } : {}),
        ...(a.parent_id !== undefined ? { parent_id: a.parent_id } : {}),
      };
      return { view, private: {}, notes: [], problems: [] };
    },

    async observe(_ctx, entry): Promise<Observation<NoteView> | undefined> {
      if (store.failOn.has(`observe:${entry.ids.id}`)) throw new FleetformError(`the store could not read ${entry.ids.id}`);
      const note = stored(entry.ids.id);
      return note ? { view: viewOf(note), version: String(note.version), facts: {} } : undefined;
    },

    judge({ replaceReasons }): Judgement {
      return { problems: [], notes: replaceReasons.length > 0 ? [{ level: 'info', message: 'a new note is written' }] : [] };
    },

    identity(view) {
      return typeof view.title === 'string' ? { key: { title: view.title }, label: `note ${view.title}` } : undefined;
    },

    async findCreated(_ctx, key, managedIds): Promise<Applied | undefined> {
      const note = [...store.notes.values()].find((n) => n.title === key.title && !managedIds.has(n.id));
      return note ? { ids: { id: note.id }, outputs: { id: note.id } } : undefined;
    },

    async create(_ctx, desired, checkpoint): Promise<Applied> {
      const title = desired.title;
      const id = await store.write('create', title, () => {
        const note: StoredNote = {
          id: store.newId(),
          title,
          text: desired.text,
          ...(typeof desired.secret === 'string' ? { secret: desired.secret } : {}),
          ...(typeof desired.parent_id === 'string' ? { parentId: desired.parent_id } : {}),
          version: 1,
        };
        store.notes.set(note.id, note);
        return note.id;
      });
      await checkpoint({ ids: { id }, outputs: { id } });
      if (store.failOn.has(`create-after-checkpoint:${title}`)) throw new FleetformError(`${title} was created but its setup failed`);
      return { ids: { id }, outputs: { id } };
    },

    async update(_ctx, entry, desired, plannedVersion): Promise<Applied> {
      const note = stored(entry.ids.id);
      if (!note) throw new FleetformError(`note ${entry.ids.id} is gone`);
      if (plannedVersion !== null && String(note.version) !== plannedVersion)
        throw new FleetformError(`note ${note.title} changed since the plan`);
      await store.write('update', note.title, () => {
        store.notes.set(note.id, {
          ...note,
          text: desired.text,
          ...(typeof desired.secret === 'string' ? { secret: desired.secret } : {}),
          version: note.version + 1,
        });
      });
      return { ids: entry.ids, outputs: entry.outputs };
    },

    async delete(_ctx, entry) {
      const note = stored(entry.ids.id);
      if (note) await store.write('delete', note.title, () => store.notes.delete(note.id));
      return 'deleted';
    },

    retainOnDelete: () => false,

    async importById(_ctx, id): Promise<Applied | undefined> {
      return store.notes.has(id) ? { ids: { id }, outputs: { id } } : undefined;
    },
  };
}

/** A service client the fake kind never uses: any use of it fails the test loudly. */
const noClient = new Proxy({} as ServiceClient, {
  get(_target, key) {
    throw new Error(`the fake kind used the service client (${String(key)})`);
  },
});

/** A kind context without a service, sharing reads within one run as the engine's does. */
export function fakeContext(): KindContext {
  const cache = new Map<string, Promise<unknown>>();
  return {
    client: noClient,
    organizationId: 'org-1',
    locationId: 'loc-1',
    memo<T>(key: string, load: () => Promise<T>): Promise<T> {
      let hit = cache.get(key) as Promise<T> | undefined;
      if (!hit) {
        hit = load();
        cache.set(key, hit);
      }
      return hit;
    },
  };
}
