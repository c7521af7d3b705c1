/** The viam-server version each simulated part reports: the emulated one unless set (`''` reports none). */
import type { Db } from '../db/database';
import { stmt } from './statements';

/** The viam-server a simulated machine runs unless a control sets another. */
export const EMULATED_VIAM_SERVER_VERSION = '0.98.0';

/**
 * The version a part reports; undefined when it reports none. A part that has checked in
 * reports the emulated version unless a control set another; one set by a control is
 * reported as if the machine had told it.
 */
export function partViamServerVersion(db: Db, partId: string, checkedIn: boolean): string | undefined {
  const row = stmt<[string], { viam_server_version: string | null }>(db, 'SELECT viam_server_version FROM robot_parts WHERE id = ?').get(
    partId,
  );
  if (!row) return undefined;
  const version = row.viam_server_version ?? (checkedIn ? EMULATED_VIAM_SERVER_VERSION : '');
  return version === '' ? undefined : version;
}

/** Sets what a part reports (`''`: none). */
export function setPartViamServerVersion(db: Db, partId: string, version: string): void {
  stmt<[string, string]>(db, 'UPDATE robot_parts SET viam_server_version = ? WHERE id = ?').run(version, partId);
}
