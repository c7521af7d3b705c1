/**
 * The one access rule of every HTTP server fleetform runs (the reconciler's API, the
 * dashboard, metrics): request facts and the server's policy in, allow or a refusal with
 * its status, reason and hint out. Each server classifies its routes and applies this at
 * its edge, before a route runs.
 *
 * - probes (`/healthz`, `/metrics`) are open to anyone, as monitoring expects;
 * - every other route needs a Host that names this server (loopback names, the listen
 *   address, and the names allowed by `--allow-host`: a DNS-rebinding page sends its own)
 *   and no Origin but the server's own (browsers send it on cross-origin requests);
 * - reads need the token too when the operator says so (`--readers-need-token`); a page's
 *   own files (HTML, script, style: the same for every server, no fleet data) never do, so
 *   a browser can open the page and be asked for the token;
 * - actions need the token (`Authorization: Bearer TOKEN`), a JSON body, and are offered
 *   only when a token is configured;
 * - nudges (ask for something that would happen anyway, sooner) need no token, as the git
 *   hosts whose push webhooks send them cannot send one.
 */

/** Where the token actions need is read from (an environment variable: flags are visible to other users). */
export const ACCESS_TOKEN_ENV = 'FLEETFORM_DASHBOARD_TOKEN';

export const ROUTE_CLASSES = ['probe', 'page', 'read', 'nudge', 'action'] as const;
export type RouteClass = (typeof ROUTE_CLASSES)[number];

/** What the request's `Authorization` header holds, compared with the token at the edge. */
export type Credential = 'absent' | 'wrong' | 'right';

export interface RequestFacts {
  readonly routeClass: RouteClass;
  /** The Host header as sent. */
  readonly host: string | undefined;
  readonly origin: string | undefined;
  /** `Sec-Fetch-Site`, sent by browsers: `same-origin`, `same-site`, `cross-site` or `none`. */
  readonly fetchSite: string | undefined;
  readonly contentType: string | undefined;
  readonly credential: Credential;
}

export interface AccessSettings {
  /** The token actions need (none: no action is offered). */
  readonly token?: string | undefined;
  /** The address the server listens on; a name or address other than every interface is allowed as Host. */
  readonly listenHost?: string | undefined;
  /** More names clients may reach the server by (e.g. a reverse proxy's public name). */
  readonly allowHosts?: readonly string[] | undefined;
  /** Reads (snapshot, status, events, pages' data) need the token too. */
  readonly readersNeedToken?: boolean | undefined;
}

export interface AccessPolicy {
  readonly token: string | undefined;
  /** Host names (lowercase, IPv6 in brackets) the server answers to. */
  readonly hosts: ReadonlySet<string>;
  readonly readersNeedToken: boolean;
}

export type AccessDecision =
  | { readonly allow: true }
  | { readonly allow: false; readonly status: 400 | 401 | 403 | 415; readonly reason: string; readonly hint: string };

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];
const EVERY_INTERFACE = new Set(['', '0.0.0.0', '[::]', '[::0]']);

/** A host name as compared: lowercase, no trailing dot, IPv6 in brackets; undefined when it is not one. */
export function normalHostName(name: string): string | undefined {
  const bare = name.trim().toLowerCase().replace(/\.$/, '');
  const bracketed = bare.includes(':') && !bare.startsWith('[') ? `[${bare}]` : bare;
  const parsed = parseAuthority(bracketed);
  return parsed && parsed.port === undefined ? parsed.hostname : undefined;
}

/** `host[:port]` of a Host header or an Origin, split; undefined when malformed. */
function parseAuthority(authority: string): { hostname: string; port: number | undefined } | undefined {
  if (authority === '' || /[\s/?#@\\]/.test(authority)) return undefined;
  let url: URL;
  try {
    url = new URL(`http://${authority}`);
  } catch {
    return undefined;
  }
  const explicit = /:(\d+)$/.exec(authority)?.[1];
  return { hostname: url.hostname.replace(/\.$/, ''), port: explicit === undefined ? undefined : Number(explicit) };
}

export function accessPolicy(settings: AccessSettings = {}): AccessPolicy {
  const hosts = new Set(LOOPBACK_NAMES);
  const listen = settings.listenHost === undefined ? undefined : normalHostName(settings.listenHost);
  if (listen !== undefined && !EVERY_INTERFACE.has(listen)) hosts.add(listen);
  for (const name of settings.allowHosts ?? []) {
    const normal = normalHostName(name);
    if (normal !== undefined) hosts.add(normal);
  }
  const token = settings.token === undefined || settings.token === '' ? undefined : settings.token;
  return { token, hosts, readersNeedToken: settings.readersNeedToken === true };
}

/** Whether `--allow-host` would take `name` (a host name or address, without port). */
export function isHostName(name: string): boolean {
  return normalHostName(name) !== undefined;
}

const deny = (status: 400 | 401 | 403 | 415, reason: string, hint: string): AccessDecision => ({ allow: false, status, reason, hint });

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

/** Whether `origin` is the server's own: the scheme's host and port are those the client reached (the Host header). */
function originIsOwn(origin: string, host: { hostname: string; port: number | undefined }): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  const defaultPort = DEFAULT_PORTS[url.protocol];
  if (defaultPort === undefined || url.origin !== origin.replace(/\/$/, '').toLowerCase()) return false;
  const originPort = url.port === '' ? defaultPort : Number(url.port);
  return url.hostname.replace(/\.$/, '') === host.hostname && originPort === (host.port ?? defaultPort);
}

function isJson(contentType: string | undefined): boolean {
  const type = (contentType ?? '').split(';', 1)[0]?.trim().toLowerCase();
  return type === 'application/json';
}

/** The refusal of a request from elsewhere than this server's own pages or a command line, if it is one. */
function fromElsewhere(facts: RequestFacts, host: { hostname: string; port: number | undefined }): AccessDecision | undefined {
  if (facts.origin !== undefined && !originIsOwn(facts.origin, host))
    return deny(
      403,
      `requests from ${JSON.stringify(facts.origin)} are refused`,
      'only this server’s own pages and clients without an Origin header are served',
    );
  if (facts.fetchSite === 'cross-site' || facts.fetchSite === 'same-site')
    return deny(403, `a ${facts.fetchSite} request from a browser is refused`, 'only this server’s own pages are served');
  return undefined;
}

/** The token hint, for a server started without one. */
export const NO_TOKEN_HINT = `start the server with ${ACCESS_TOKEN_ENV} set in its environment (at least 16 random characters, e.g. \`openssl rand -hex 24\`), and send it as \`Authorization: Bearer TOKEN\``;

function credentialRefusal(facts: RequestFacts, what: string): AccessDecision | undefined {
  if (facts.credential === 'right') return undefined;
  return deny(
    401,
    facts.credential === 'absent' ? `${what} need the token` : 'the token is wrong',
    `send it as \`Authorization: Bearer TOKEN\` (the value of ${ACCESS_TOKEN_ENV} where the server runs)`,
  );
}

export function decideAccess(facts: RequestFacts, policy: AccessPolicy): AccessDecision {
  if (facts.routeClass === 'probe') return { allow: true };
  const host = facts.host === undefined ? undefined : parseAuthority(facts.host.trim().toLowerCase());
  if (host === undefined) return deny(400, 'the request has no valid Host header', 'send the server’s name and port as Host');
  if (!policy.hosts.has(host.hostname))
    return deny(
      403,
      `this server does not answer to the name ${JSON.stringify(host.hostname)}`,
      `reach it by ${[...policy.hosts].join(', ')}, or start it with --allow-host ${host.hostname} if that name is yours`,
    );
  const elsewhere = fromElsewhere(facts, host);
  if (elsewhere) return elsewhere;
  if (facts.routeClass === 'nudge' || facts.routeClass === 'page') return { allow: true };
  if (facts.routeClass === 'read') {
    if (!policy.readersNeedToken) return { allow: true };
    if (policy.token === undefined) return deny(403, 'reads need a token, and this server has none', NO_TOKEN_HINT);
    return credentialRefusal(facts, 'reads') ?? { allow: true };
  }
  if (policy.token === undefined) return deny(403, 'actions are off: this server was started without a token', NO_TOKEN_HINT);
  const refused = credentialRefusal(facts, 'actions');
  if (refused) return refused;
  if (!isJson(facts.contentType))
    return deny(
      415,
      `actions take application/json, not ${JSON.stringify(facts.contentType ?? 'no content type')}`,
      'send the body as JSON with `Content-Type: application/json` (`{}` when there is nothing to say)',
    );
  return { allow: true };
}
