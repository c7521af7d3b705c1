/** The credentials of an organization the emulator seeded, also written to `DIR/credentials.json` (mode 0600). */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';

export const EmulatorCredentialsSchema = z.object({
  apiKeyId: z.string().min(1),
  apiKey: z.string().min(1),
  organizationId: z.string().min(1),
  locationId: z.string().min(1),
  datasetId: z.string().min(1),
});
export type EmulatorCredentials = z.infer<typeof EmulatorCredentialsSchema>;

export const CREDENTIALS_FILE = 'credentials.json';

/** Writes the credentials file with owner-only permissions. */
export function writeCredentials(dataDir: string, creds: EmulatorCredentials): void {
  const file = path.join(dataDir, CREDENTIALS_FILE);
  fs.writeFileSync(file, `${JSON.stringify(creds, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
}

/** The credentials file's content, or undefined when it is missing or unreadable. */
export function readCredentials(dataDir: string): EmulatorCredentials | undefined {
  const file = path.join(dataDir, CREDENTIALS_FILE);
  if (!fs.existsSync(file)) return undefined;
  const parsed = EmulatorCredentialsSchema.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
  return parsed.success ? parsed.data : undefined;
}
