/**
 * `proto.rpc.v1.AuthService/Authenticate` (api-key credentials -> bearer token) and the
 * interceptor that requires `authorization: Bearer <token>` on every other call.
 * Codes and messages are the service's: a refused key is PERMISSION_DENIED, a missing or
 * unknown token UNAUTHENTICATED.
 */
import type { Interceptor, ServiceImpl } from '@connectrpc/connect';
import { AuthService, type AuthServiceType } from '../../api/services';
import { ACCESS_TOKEN_TTL_MS, generateAccessToken, hashAccessToken, verifyApiKey } from '../auth/keys';
import type { Principal } from '../auth/principal';
import { accessTokenKey, getApiKey, grantsOf, insertAccessToken } from '../store/accounts';
import type { Db } from '../db/database';
import { principalKey, type Backend } from './context';
import { invalidArgument, permissionDenied, unauthenticated } from './errors';

const BEARER = 'Bearer ';

export function authService(backend: Backend): Partial<ServiceImpl<AuthServiceType>> {
  return {
    authenticate(req) {
      const creds = req.credentials;
      const entity = req.entity;
      if (!creds) throw invalidArgument('credentials required');
      if (creds.type !== 'api-key') {
        throw invalidArgument(`unknown credentials type ${JSON.stringify(creds.type)}; this service accepts "api-key"`);
      }
      const key = entity === '' ? undefined : getApiKey(backend.db, entity);
      if (!key || !verifyApiKey(creds.payload, key.salt, key.hash)) {
        throw permissionDenied('failed to authenticate: invalid API key or API key ID');
      }
      const token = generateAccessToken();
      const now = backend.now();
      insertAccessToken(backend.db, hashAccessToken(token), key.id, now + ACCESS_TOKEN_TTL_MS, now);
      return { accessToken: token };
    },
  };
}

/** The principal behind an `authorization` header value, with its token's expiry; throws Unauthenticated otherwise. */
function lookUpToken(db: Db, header: string | null, now: number): { readonly principal: Principal; readonly expiresAt: number } {
  if (header === null || header === '') throw unauthenticated('authentication required');
  if (!header.startsWith(BEARER) || header.length === BEARER.length) {
    throw unauthenticated(`expected authorization header with prefix: ${BEARER}`);
  }
  const found = accessTokenKey(db, hashAccessToken(header.slice(BEARER.length).trim()));
  if (!found) throw unauthenticated('invalid access token');
  if (found.expiresAt <= now) throw unauthenticated('access token expired; authenticate again');
  return { principal: { keyId: found.keyId, grants: grantsOf(db, found.keyId) }, expiresAt: found.expiresAt };
}

/**
 * Principals by `authorization` header while the database stays as it was when they were
 * looked up: any write by this emulator (SQLite's total_changes) or by another process on
 * the same data folder (data_version) forgets them all, so a new token, grant or key is
 * seen by the next call. A token's expiry is checked at every use.
 */
export class PrincipalCache {
  private readonly entries = new Map<string, ReturnType<typeof lookUpToken>>();
  private stamp = '';
  private readonly readStamp: () => string;

  constructor(
    private readonly db: Db,
    private readonly maxEntries = 1024,
  ) {
    const statement = db.prepare<[], { changes: number; version: number }>(
      'SELECT total_changes() AS changes, (SELECT data_version FROM pragma_data_version) AS version',
    );
    this.readStamp = () => {
      const row = statement.get() as { changes: number; version: number };
      return `${row.changes}/${row.version}`;
    };
  }

  /** The principal behind an `authorization` header value; throws Unauthenticated otherwise. */
  principal(header: string | null, now: number): Principal {
    const stamp = this.readStamp();
    if (stamp !== this.stamp) {
      this.entries.clear();
      this.stamp = stamp;
    }
    const hit = header === null ? undefined : this.entries.get(header);
    if (hit && hit.expiresAt > now) return hit.principal;
    const found = lookUpToken(this.db, header, now);
    if (header !== null) {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(header, found);
    }
    return found.principal;
  }
}

/** Authenticates every call except AuthService's and stores the caller in the context. */
export function authInterceptor(principals: PrincipalCache, now: () => number): Interceptor {
  return (next) => async (req) => {
    if (req.service.typeName !== AuthService.typeName) {
      req.contextValues.set(principalKey, principals.principal(req.header.get('authorization'), now()));
    }
    return next(req);
  };
}
