/**
 * Runs an emulator in a process of its own for the hostile-client suite (its memory is
 * measured apart from the test's): limits from FLEETFORM_EMULATOR_* variables, data
 * folder from argv[2]; prints one JSON line with its URL and credentials, stops on SIGTERM.
 */
import { startEmulator } from '../../../src/emulator';

async function main(): Promise<void> {
  const dataDir = process.argv[2];
  if (!dataDir) throw new Error('usage: serve-child.ts DATA_DIR');
  const emulator = await startEmulator({ dataDir, port: 0 });
  process.stdout.write(`${JSON.stringify({ url: emulator.url, credentials: emulator.credentials })}\n`);
  process.once('SIGTERM', () => {
    void emulator.close().then(() => process.exit(0));
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
