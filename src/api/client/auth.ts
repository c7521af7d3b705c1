/**
 * API-key authentication: the key is exchanged for an access token by
 * `proto.rpc.v1.AuthService/Authenticate`, and every other call carries
 * `authorization: Bearer <token>`. A call rejected with UNAUTHENTICATED gets one fresh
 * token and is sent once more.
 */
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import { redact } from './errors';

/** API key credentials as the service's dial options take them: the key is the payload, its id the auth entity. */
export interface ApiKeyCredentials {
  readonly type: 'api-key';
  /** The API key id. */
  readonly authEntity: string;
  /** The API key itself (a secret). */
  readonly payload: string;
}

/** The typeName of the service whose calls carry no token. */
export const AUTH_SERVICE_TYPE_NAME = 'proto.rpc.v1.AuthService';

/**
 * The token exchange failed. A ConnectError (so raw clients see the service's code) that
 * says which call failed; its message never contains the key.
 */
export class AuthenticationError extends ConnectError {
  /** Brand: `instanceof` cannot tell subclasses apart (ConnectError overrides it). */
  readonly failedAuthentication = true;
  constructor(cause: ConnectError, secrets: readonly string[]) {
    super(redact(cause.rawMessage, secrets), cause.code);
  }
}

/** Whether `e` is an {@link AuthenticationError}. */
export function isAuthenticationError(e: unknown): e is AuthenticationError {
  return e instanceof Error && (e as Partial<AuthenticationError>).failedAuthentication === true;
}

/** Hands out the current access token, fetching it on first use and on demand. */
export class TokenSource {
  private current: Promise<string> | undefined;
  private value: string | undefined;

  /** `exchange` performs the Authenticate call and resolves to the access token. */
  constructor(private readonly exchange: () => Promise<string>) {}

  /** The current token, authenticating first when there is none. */
  token(): Promise<string> {
    this.current ??= this.fetch();
    return this.current;
  }

  /** The token in hand, without waiting: undefined before the first exchange ends and while a new one is fetched. */
  peek(): string | undefined {
    return this.value;
  }

  /**
   * A token other than `stale`: authenticates again unless another caller already
   * replaced `stale`, so concurrent rejections cause a single exchange.
   */
  refresh(stale: string): Promise<string> {
    if (this.current === undefined || this.value === stale) {
      this.value = undefined;
      this.current = this.fetch();
    }
    return this.current;
  }

  private fetch(): Promise<string> {
    const p = this.exchange().then(
      (t) => {
        this.value = t;
        return t;
      },
      (e: unknown) => {
        if (this.current === p) this.current = undefined; // let the next call try again
        throw e;
      },
    );
    return p;
  }
}

/** Adds the bearer token to every call except Authenticate; re-authenticates once on UNAUTHENTICATED. */
export function authInterceptor(tokens: TokenSource): Interceptor {
  return (next) => async (req) => {
    if (req.service.typeName === AUTH_SERVICE_TYPE_NAME) return next(req);
    const token = await tokens.token();
    req.header.set('authorization', `Bearer ${token}`);
    try {
      return await next(req);
    } catch (e) {
      if (!(e instanceof ConnectError) || e.code !== Code.Unauthenticated) throw e;
      const fresh = await tokens.refresh(token);
      req.header.set('authorization', `Bearer ${fresh}`);
      return await next(req);
    }
  };
}
