/**
 * `proto.rpc.v1.AuthService/Authenticate` (api-key credentials -> bearer token) and the
 * interceptor that requires `authorization: Bearer <token>` on every other call.
 * Codes and messages are the service's: a refused key is PERMISSION_DENIED, a missing or
 * unknown token UNAUTHENTICATED.
 */
import { createContextValues, type ContextValues, type Interceptor, type ServiceImpl } from '@connectrpc/connect';
import { AuthService, type AuthServiceType } from '../../api/services';
import { ACCESS_TOKEN_TTL_MS, ApiKeyVerifier, generateAccessToken, hashAccessToken } from '../auth/keys';
import type { Principal } from '../auth/principal';
import { accessTokenKey, getApiKey, grantsOf, insertAccessToken } from '../store/accounts';
import type { Db } from '../db/database';
import { principalKey, type Backend } from './context';
import { invalidArgument, permissionDenied, unauthenticated } from './errors';

const BEARER = 'Bearer ';

/** `keys` checks the secrets (one per service: it remembers the secrets it accepted). */
export function authService(backend: Pick<Backend, 'db' | 'now'>, keys = new ApiKeyVerifier()): Partial<ServiceImpl<AuthServiceType>> {
  return {
    authenticate(req) {
      const creds = req.credentials;
      const entity = req.entity;
      if (!creds) throw invalidArgument('credentials required');
      if (creds.type !== 'api-key') {
        throw invalidArgument(`unknown credentials type ${JSON.stringify(creds.type)}; this service accepts "api-key"`);
      }
      const key = entity === '' ? undefined : getApiKey(backend.db, entity);
      // An unknown key id costs the derivation a known one does: timing tells nothing.
      if (!keys.verifyKey(creds.payload, key) || !key) {
        throw permissionDenied('failed to authenticate: invalid API key or API key ID');
      }
      const token = generateAccessToken();
      const now = backend.now();
      insertAccessToken(backend.db, hashAccessToken(token), key.id, now + ACCESS_TOKEN_TTL_MS, now);
      return { accessToken: token };
    },
  };
}

/** The principal behind an `authorization` header value; throws Unauthenticated otherwise. */
export function principalFromHeader(db: Db, header: string | null, now: number): Principal {
  if (header === null || header === '') throw unauthenticated('authentication required');
  if (!header.startsWith(BEARER) || header.length === BEARER.length) {
    throw unauthenticated(`expected authorization header with prefix: ${BEARER}`);
  }
  const found = accessTokenKey(db, hashAccessToken(header.slice(BEARER.length).trim()));
  if (!found) throw unauthenticated('invalid access token');
  if (found.expiresAt <= now) throw unauthenticated('access token expired; authenticate again');
  return { keyId: found.keyId, grants: grantsOf(db, found.keyId) };
}

/** Context values holding the caller of a call to `serviceTypeName`; throws Unauthenticated for a call without a valid token. */
export function authenticatedContext(backend: Backend, serviceTypeName: string, authorization: string | null): ContextValues | undefined {
  if (serviceTypeName === AuthService.typeName) return undefined;
  const values = createContextValues();
  values.set(principalKey, principalFromHeader(backend.db, authorization, backend.now()));
  return values;
}

/** Authenticates every call except AuthService's whose caller is not yet in the context, and stores it there. */
export function authInterceptor(backend: Backend): Interceptor {
  return (next) => async (req) => {
    if (req.service.typeName !== AuthService.typeName && req.contextValues.get(principalKey) === undefined) {
      req.contextValues.set(principalKey, principalFromHeader(backend.db, req.header.get('authorization'), backend.now()));
    }
    return next(req);
  };
}
