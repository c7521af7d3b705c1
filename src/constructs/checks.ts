import type { IConstruct } from 'constructs';
import type { Issue } from '../domain';
import type { ConstructType } from './construct-types';

/** Where checks put the problems they find, each against a construct and its field. */
export interface IssueSink {
  add(construct: IConstruct, field: string, issue: Omit<Issue, 'path'>): void;
  error(construct: IConstruct, field: string, code: string, message: string, hint?: string): void;
}

/**
 * What a kind of construct asks of the app's analysis, registered by the construct's own
 * module. Every resource is also counted in the app summary under its Terraform type and
 * checked for a shared address without asking; a construct of a kind that registered no
 * checks is an error of the app's analysis, never passed by in silence.
 */
export interface KindChecks<C extends IConstruct> {
  /** A construct's own checks, with the stack it belongs to. */
  readonly each?: (construct: C, sink: IssueSink, stack: IConstruct) => void;
  /**
   * The checks across the constructs of this kind in one stack (duplicate names, one per
   * stack), in tree order; `'checked-elsewhere'` for a kind checked with the construct
   * that holds it (a machine's modules), `'none'` where names may repeat. Required, so a
   * new kind says which.
   */
  readonly acrossStack: ((constructs: readonly C[], sink: IssueSink, stack: IConstruct) => void) | 'checked-elsewhere' | 'none';
}

/** The issue IssueSink.error stands for: an error, with its hint when there is one. */
export function errorIssueOf(code: string, message: string, hint?: string): Omit<Issue, 'path'> {
  return hint === undefined ? { severity: 'error', code, message } : { severity: 'error', code, message, hint };
}

const registered = new Map<ConstructType, KindChecks<IConstruct>>();

/** Registers the checks of a kind of construct; called once by the module that defines it. */
export function registerChecks<C extends IConstruct>(kind: ConstructType, checks: KindChecks<C>): void {
  registered.set(kind, checks as unknown as KindChecks<IConstruct>);
}

/** The checks registered for a kind, if any. */
export function checksOf(kind: ConstructType): KindChecks<IConstruct> | undefined {
  return registered.get(kind);
}
