import type { IConstruct } from 'constructs';
import type { ConfigOverride } from './config-overrides';
import { z } from 'zod';
import { EMPTY_LIST_SECTIONS, type EmptyListSection } from '../domain/config';

/**
 * What a machine (or fragment) declares beyond its modules, resources and packages: its
 * top-level settings (`network`, `auth`, `debug`, ...), the entries of its other lists
 * (`remotes`, `processes`, in declaration order) and its overrides, kept by owner.
 */
export interface MachineSections {
  /** Top-level keys and their values as code gives them, in the order given. */
  readonly settings: Map<string, unknown>;
  /** Entries of the other lists, each made when the config is assembled. */
  readonly entries: Array<{ readonly section: string; readonly entry: () => unknown }>;
  readonly overrides: ConfigOverride[];
  /** The lists held even when empty, when code names them (`emptyLists`); else DEFAULT_EMPTY_LISTS. */
  emptyLists?: readonly EmptyListSection[];
}

const byOwner = new WeakMap<IConstruct, MachineSections>();

/** The sections of an owner, made on first use. */
export function sectionsOf(owner: IConstruct): MachineSections {
  let found = byOwner.get(owner);
  if (found === undefined) {
    found = { settings: new Map(), entries: [], overrides: [] };
    byOwner.set(owner, found);
  }
  return found;
}

/** The sections of an owner when it declares any. */
export function declaredSectionsOf(owner: IConstruct): MachineSections | undefined {
  return byOwner.get(owner);
}

/** The config with the owner's settings and list entries added (after what the config has), overrides not yet applied. */
export function withSections<T extends object>(config: T, sections: MachineSections | undefined): T {
  if (sections === undefined || (sections.settings.size === 0 && sections.entries.length === 0)) return config;
  const out: Record<string, unknown> = { ...(config as Record<string, unknown>) };
  for (const { section, entry } of sections.entries) out[section] = [...((out[section] as unknown[] | undefined) ?? []), entry()];
  for (const [key, value] of sections.settings) if (value !== undefined) out[key] = value;
  return out as T;
}

/** The run-time check of an `emptyLists` prop: known lists, each once. */
export const emptyListsSchema = z
  .array(z.enum(EMPTY_LIST_SECTIONS))
  .refine((lists) => new Set(lists).size === lists.length, 'name each list once');

/** Declares the lists an owner's config holds even when empty (nothing when not given: the default). */
export function declareEmptyLists(owner: IConstruct, lists: readonly EmptyListSection[] | undefined): void {
  if (lists !== undefined) sectionsOf(owner).emptyLists = [...lists];
}
