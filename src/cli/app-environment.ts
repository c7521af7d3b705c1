import { InputError } from '../domain/errors';
import { isSecretEnvName } from '../domain/module-env';
import { APP_SECRET_CHANNEL_VARIABLE } from '../domain/secret-reference';
import { APP_SECRET_CHANNEL_FD } from './app-process';

/** What cdktf.json says about running the app. */
export interface CdktfSettings {
  /** The command that runs the app, e.g. `npx ts-node main.ts`. */
  readonly app: string;
  /** cdktf.json `context`: values the app reads with `node.getContext`. */
  readonly context: Readonly<Record<string, unknown>>;
  /** cdktf.json `terraformModules`, as written. */
  readonly terraformModules: readonly unknown[];
  /** cdktf.json `fleetform.passEnv`: the variables of the project's own the app reads (never fleetform's). */
  readonly passEnv?: readonly string[];
}

/**
 * Variables every app gets when they are set: what a shell, Node, npm, cdktf and Terraform
 * need to run (names compared without case, as Windows does).
 */
const PASSED_NAMES = new Set(
  [
    'PATH',
    'HOME',
    'USER',
    'LOGNAME',
    'SHELL',
    'PWD',
    'TMPDIR',
    'TMP',
    'TEMP',
    'LANG',
    'LANGUAGE',
    'TZ',
    'TERM',
    'COLORTERM',
    'NO_COLOR',
    'FORCE_COLOR',
    'CI',
    'SSL_CERT_FILE',
    'SSL_CERT_DIR',
    'SYSTEMROOT',
    'SYSTEMDRIVE',
    'WINDIR',
    'COMSPEC',
    'PATHEXT',
    'OS',
    'USERPROFILE',
    'HOMEDRIVE',
    'HOMEPATH',
    'APPDATA',
    'LOCALAPPDATA',
    'PROGRAMDATA',
    'PROGRAMFILES',
    'PROGRAMFILES(X86)',
    'NUMBER_OF_PROCESSORS',
    'PROCESSOR_ARCHITECTURE',
  ].map((n) => n.toUpperCase()),
);
/** Prefixes of variables every app gets, unless the name looks secret (`NODE_AUTH_TOKEN`, `TF_TOKEN_*`) or is a Terraform variable. */
const PASSED_PREFIXES = ['LC_', 'XDG_', 'NODE_', 'NPM_', 'CDKTF_', 'JSII_', 'TF_'];

/** Names only the operator (FLEETFORM_PASS_ENV, --pass-env) may pass: fleetform's own, credentials among them. */
export function isFleetformVariable(name: string): boolean {
  return name.toUpperCase().startsWith('FLEETFORM_');
}

/** The variables named in FLEETFORM_PASS_ENV (comma- or space-separated). */
export function passEnvFromEnvironment(env: NodeJS.ProcessEnv): string[] {
  return (env.FLEETFORM_PASS_ENV ?? '').split(/[\s,]+/).filter((n) => n !== '');
}

/**
 * Whether the app gets the parent's variable `name`: those it needs to run (PASSED_NAMES and
 * PASSED_PREFIXES, but Terraform variables and names that look secret) and those asked for.
 */
export function passesToApp(name: string, asked: ReadonlySet<string>): boolean {
  if (asked.has(name)) return true;
  const upper = name.toUpperCase();
  if (PASSED_NAMES.has(upper)) return true;
  if (upper.startsWith('TF_VAR_') || isSecretEnvName(upper)) return false;
  return PASSED_PREFIXES.some((p) => upper.startsWith(p));
}

/** Refuses a project's request for one of fleetform's own variables: only the operator passes those. */
export function checkProjectPassEnv(names: readonly string[], file: string): void {
  const own = names.find(isFleetformVariable);
  if (own)
    throw new InputError(`cdktf.json fleetform.passEnv asks for ${own}: fleetform's own variables are not the project's to ask for`, {
      path: file,
      hint: `remove it from cdktf.json; an operator who means the app to have it passes it with --pass-env ${own} or FLEETFORM_PASS_ENV`,
    });
}

const HEAP_OPTION = '--max-old-space-size';

/** Local Terraform modules (`./x`, `../x`): the app gets them in its context as `cdktfRelativeModules`. */
function relativeModules(modules: readonly unknown[]): unknown[] {
  const isRelative = (source: unknown) => typeof source === 'string' && (source.startsWith('./') || source.startsWith('../'));
  return modules.filter((m) => isRelative(m) || (m !== null && typeof m === 'object' && isRelative((m as { source?: unknown }).source)));
}

function quoteNodeOption(value: string): string {
  return `"${value.replace(/(["\\])/g, '\\$1')}"`;
}

/**
 * The environment `cdktf synth` gives an app, plus fleetform's own two entries: of the
 * parent's environment, only what an app needs to run and the variables asked for (by the
 * project's cdktf.json `fleetform.passEnv`, by the operator's `operatorPassEnv`), so that
 * fleetform's credentials and the machine's other secrets are not the app's to print; a
 * larger heap unless NODE_OPTIONS says otherwise, the output folder, the context of
 * cdktf.json, the preloaded reporter with the file it writes to, and the descriptor of the
 * private channel for the values the app hands over (Secret.fromValue). Secrets by
 * reference (Secret.fromEnv, Secret.fromFile) are read by fleetform at plan time, not by
 * the app: their variables need not pass.
 */
export function appEnvironment(
  parent: NodeJS.ProcessEnv,
  settings: CdktfSettings,
  outdir: string,
  reporter: { readonly preload: string; readonly reportFile: string },
  operatorPassEnv: readonly string[] = passEnvFromEnvironment(parent),
): NodeJS.ProcessEnv {
  const asked = new Set([...(settings.passEnv ?? []), ...operatorPassEnv]);
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(parent)) if (passesToApp(key, asked)) env[key] = value;
  const userOptions = (env.NODE_OPTIONS ?? '').trim();
  const heap = userOptions.includes(HEAP_OPTION) ? '' : `${HEAP_OPTION}=4096`;
  env.NODE_OPTIONS = [userOptions, heap, `--require ${quoteNodeOption(reporter.preload)}`].filter((o) => o !== '').join(' ');
  let inherited: Record<string, unknown> = {};
  try {
    const parsed: unknown = parent.CDKTF_CONTEXT_JSON ? JSON.parse(parent.CDKTF_CONTEXT_JSON) : {};
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) inherited = parsed as Record<string, unknown>;
  } catch {
    // An unreadable inherited context is replaced by cdktf.json's, as cdktf's own is.
  }
  env.CDKTF_OUTDIR = outdir;
  env.CDKTF_CONTINUE_SYNTH_ON_ERROR_ANNOTATIONS = 'true';
  env.CDKTF_CONTEXT_JSON = JSON.stringify({
    ...inherited,
    ...settings.context,
    cdktfRelativeModules: relativeModules(settings.terraformModules),
  });
  env.SYNTH_HCL_OUTPUT = 'false';
  env.FLEETFORM_REPORT_FILE = reporter.reportFile;
  env[APP_SECRET_CHANNEL_VARIABLE] = String(APP_SECRET_CHANNEL_FD);
  return env;
}
