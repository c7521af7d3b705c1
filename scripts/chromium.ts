/**
 * Debian's Chromium for the browser tests and the bench, driven by puppeteer-core. It is
 * installed by scripts/ensure-chromium.sh when missing; a machine where that cannot happen
 * fails the caller saying how to install it.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';

const ROOT = path.resolve(__dirname, '..');

function chromiumPath(): string | undefined {
  for (const program of ['chromium', 'chromium-browser']) {
    const found = spawnSync('sh', ['-c', `command -v ${program}`], { encoding: 'utf8' }).stdout.trim();
    if (found) return found;
  }
  return undefined;
}

/** The system browser's path, installing it first when missing. */
export function ensureChromium(): string {
  let found = chromiumPath();
  if (!found) {
    const installed = spawnSync(path.join(ROOT, 'scripts', 'ensure-chromium.sh'), {
      encoding: 'utf8',
      stdio: ['ignore', 'inherit', 'pipe'],
    });
    found = chromiumPath();
    if (!found)
      throw new Error(`Chromium is needed here and could not be installed: ${installed.stderr.trim() || `exit ${installed.status}`}`);
  }
  return found;
}

/** Starts the system Chromium headless (without its sandbox when run as root, which it refuses otherwise). */
export function launchChromium(): Promise<Browser> {
  const asRoot = process.getuid?.() === 0;
  return puppeteer.launch({
    executablePath: ensureChromium(),
    headless: true,
    args: [...(asRoot ? ['--no-sandbox'] : []), '--disable-dev-shm-usage', '--disable-gpu', '--no-first-run', '--no-default-browser-check'],
  });
}
