/**
 * Preloaded (`node --require`) into the process that runs a user's CDKTF app for
 * `fleetform validate` / `synth`. It installs the app hook, so every fleetform app in the
 * process can be asked for its report, records an uncaught error instead of letting Node
 * print a stack trace, and at exit writes one JSON document to FLEETFORM_REPORT_FILE:
 * the reports of the apps and the crash, if any. Nothing happens without that variable.
 */
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { APP_HOOK, type AppHook, type AppReport } from '../constructs/app-hook';
import type { AppCrash, ChildReport } from './app-report-file';

/** fleetform's own code, compiled or as source: its frames are never the user's. */
const PACKAGE_ROOT = path.resolve(__dirname, '..', '..');
const PACKAGE_CODE = ['dist', 'src'].map((folder) => `${path.join(PACKAGE_ROOT, folder)}${path.sep}`);

/** The path of a stack frame's file: ES modules name theirs as `file://` URLs. */
function fileOf(name: string): string {
  if (!name.startsWith('file://')) return name;
  try {
    return fileURLToPath(name);
  } catch {
    return name;
  }
}

/** `main.ts:12:5`: the first frame of the user's own code, relative to the working folder. */
function userLocation(stack: string | undefined): string | undefined {
  for (const line of (stack ?? '').split('\n').slice(1)) {
    const m = /\(?((?:file:\/\/)?(?:[A-Za-z]:)?[^():\s][^():]*):(\d+):(\d+)\)?\s*$/.exec(line.trim());
    if (!m) continue;
    const file = fileOf(m[1] as string);
    if (
      !path.isAbsolute(file) ||
      file.includes(`${path.sep}node_modules${path.sep}`) ||
      PACKAGE_CODE.some((folder) => file.startsWith(folder))
    )
      continue;
    return `${path.relative(process.cwd(), file)}:${m[2]}:${m[3]}`;
  }
  return undefined;
}

function describeCrash(err: unknown): AppCrash {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err) };
  const { path: where, hint } = err as { path?: unknown; hint?: unknown };
  const location = userLocation(err.stack);
  return {
    name: err.name,
    message: err.message,
    ...(typeof where === 'string' ? { path: where } : {}),
    ...(typeof hint === 'string' ? { hint } : {}),
    ...(location === undefined ? {} : { location }),
  };
}

const reportFile = process.env.FLEETFORM_REPORT_FILE;
if (reportFile) {
  const apps = new Map<object, () => AppReport>();
  const hook: AppHook = {
    observe(root, report) {
      if (!apps.has(root)) apps.set(root, report);
    },
  };
  (globalThis as { [APP_HOOK]?: AppHook })[APP_HOOK] = hook;
  let crash: AppCrash | undefined;
  let checkFailure: AppCrash | undefined;
  const onCrash = (err: unknown): void => {
    crash ??= describeCrash(err);
    process.exitCode = 1;
  };
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);
  process.on('exit', () => {
    const reports: AppReport[] = [];
    for (const report of apps.values()) {
      try {
        reports.push(report());
      } catch (err) {
        checkFailure ??= describeCrash(err);
      }
    }
    // A process that saw no app and no error (e.g. a launcher like `npx`) leaves the file alone.
    if (reports.length === 0 && crash === undefined && checkFailure === undefined) return;
    const document: ChildReport = {
      apps: reports,
      ...(crash === undefined ? {} : { crash }),
      ...(checkFailure === undefined ? {} : { checkFailure }),
    };
    writeFileSync(reportFile, JSON.stringify(document), { mode: 0o600 });
  });
}
