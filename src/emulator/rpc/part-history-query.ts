/**
 * GetRobotPartHistory's paging, as the emulator answers it: without `page_limit` (or with 0)
 * the whole history, newest edit first, as before the service had paging; with a limit, at
 * most that many entries and a `next_page_token` when more remain. The token is opaque to
 * callers (the number of the page's last entry). `start` and `end` keep edits made at or
 * after `start` and at or before `end`.
 */
import type { HistoryQuery } from '../store/part-history';
import { millisOf } from './context';
import { invalidArgument } from './errors';

export interface HistoryRequest {
  readonly pageToken?: string;
  readonly pageLimit?: bigint;
  readonly start?: { seconds: bigint; nanos: number };
  readonly end?: { seconds: bigint; nanos: number };
}

export function historyQuery(req: HistoryRequest): HistoryQuery {
  const limit = req.pageLimit ?? 0n;
  if (limit < 0n || limit > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw invalidArgument(`page_limit: ${limit} is negative or too large; use a positive number, or leave it unset for every entry`);
  }
  const token = req.pageToken ?? '';
  if (token !== '' && !/^[1-9]\d{0,15}$/.test(token)) {
    throw invalidArgument(`page_token: invalid page token ${JSON.stringify(token)}; pass the next_page_token of the previous page`);
  }
  const start = req.start ? millisOf(req.start) : undefined;
  const end = req.end ? millisOf(req.end) : undefined;
  if (start !== undefined && end !== undefined && start > end) {
    throw invalidArgument('start: after end; no edit can be in the range');
  }
  return {
    ...(token === '' ? {} : { beforeSeq: Number(token) }),
    ...(start === undefined ? {} : { start }),
    ...(end === undefined ? {} : { end }),
    ...(limit === 0n ? {} : { limit: Number(limit) }),
  };
}
