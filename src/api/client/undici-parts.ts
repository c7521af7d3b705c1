/**
 * The two parts of undici the client uses, each from its own module: the package's entry
 * point also loads fetch, WebSocket, the caches and the mocks (about 180 CPU-ms at every
 * start against 60 for these) and adds its request API to every dispatcher's prototype.
 * They are the modules the entry point exports (a test checks both).
 */
import type { Dispatcher, Pool as UndiciPool } from 'undici';

/* eslint-disable @typescript-eslint/no-require-imports -- undici's own modules, not the package's entry point */
/** undici's connection pool. */
export const Pool = require('undici/lib/dispatcher/pool') as typeof UndiciPool;
export type Pool = UndiciPool;

const requestApi = require('undici/lib/api/api-request') as (
  this: Dispatcher,
  options: Dispatcher.RequestOptions,
) => Promise<Dispatcher.ResponseData>;
/* eslint-enable @typescript-eslint/no-require-imports */

/** undici's `dispatcher.request(options)`: the answer's status, headers, body stream and trailers. */
export function request(dispatcher: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
  return requestApi.call(dispatcher, options);
}
