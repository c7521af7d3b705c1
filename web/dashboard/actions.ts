/** Actions the page asks the server to take, with the token the user entered (kept for this tab only). */
import type { ActionResult } from '../../src/dashboard/view';

const TOKEN_KEY = 'fleetform-dashboard-token';

export function savedToken(): string {
  return sessionStorage.getItem(TOKEN_KEY) ?? '';
}

export function saveToken(token: string): void {
  if (token === '') sessionStorage.removeItem(TOKEN_KEY);
  else sessionStorage.setItem(TOKEN_KEY, token);
}

/** The saved token as a request header (a server may want it for reads too). */
export function readHeaders(): Record<string, string> {
  const token = savedToken();
  return token ? { authorization: `Bearer ${token}` } : {};
}

function headers(): Record<string, string> {
  return { 'content-type': 'application/json', ...readHeaders() };
}

async function answer(res: Response): Promise<ActionResult> {
  try {
    return (await res.json()) as ActionResult;
  } catch {
    return { ok: false, message: `the server answered ${res.status}` };
  }
}

/** Checks the saved token against the server. */
export async function checkToken(): Promise<ActionResult> {
  return answer(await fetch('api/token', { headers: headers() }));
}

export type ActionName = 'abort' | 'resume' | 'approve' | 'heal';

export async function act(name: ActionName, body: { stack?: string; rollout?: string } = {}): Promise<ActionResult> {
  try {
    return await answer(await fetch(`api/actions/${name}`, { method: 'POST', headers: headers(), body: JSON.stringify(body) }));
  } catch (err) {
    return { ok: false, message: `the server could not be reached: ${String(err)}` };
  }
}
