/**
 * A service endpoint as an operator or an app writes it: an http:// or https:// URL. One
 * written without its scheme (`127.0.0.1:8080`, `app.example.com:443`) is refused with the
 * URL it most likely means, naming where it was written.
 */
import { InputError } from './errors';

/** The hosts an endpoint over plain http is meant for: this machine. */
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export class EndpointError extends InputError {}

/** The URL a scheme-less endpoint most likely means: http for this machine (a local emulator), https elsewhere. */
export function endpointWithScheme(text: string): string {
  const bare = text.trim().replace(/^\/+/, '');
  const host = bare.startsWith('[') ? bare.slice(0, bare.indexOf(']') + 1) : (bare.split(/[:/]/)[0] ?? '');
  return `${LOCAL_HOSTS.has(host.toLowerCase()) ? 'http' : 'https'}://${bare}`;
}

/** Refuses an endpoint that is not an http:// or https:// URL with a host; `source` is the variable or field it came from. */
export function checkServiceEndpoint(text: string, source: string): void {
  const trimmed = text.trim();
  let url: URL | undefined;
  try {
    url = new URL(trimmed);
  } catch {
    url = undefined;
  }
  if (url && (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '') return;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(trimmed)?.[1];
  if (scheme)
    throw new EndpointError(`${JSON.stringify(text)} is a ${scheme}:// address; the service is reached over http:// or https://`, {
      path: source,
      hint: `write it as ${endpointWithScheme(trimmed.slice(scheme.length + 3))}`,
    });
  const meant = endpointWithScheme(trimmed);
  throw new EndpointError(`${JSON.stringify(text)} has no http:// or https:// in front`, {
    path: source,
    hint: `write it as ${meant}${meant.startsWith('http:') ? ' (http for an emulator on this machine)' : ' (https for a remote service)'}`,
  });
}
