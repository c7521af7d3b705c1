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
 * The environment `cdktf synth` gives an app, plus fleetform's own two entries: the
 * parent's environment without Terraform variables (`TF_VAR_*` belong to plan time), a
 * larger heap unless NODE_OPTIONS says otherwise, the output folder, the context of
 * cdktf.json, the preloaded reporter with the file it writes to, and the descriptor of the
 * private channel for the values the app hands over (Secret.fromValue).
 */
export function appEnvironment(
  parent: NodeJS.ProcessEnv,
  settings: CdktfSettings,
  outdir: string,
  reporter: { readonly preload: string; readonly reportFile: string },
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(parent)) if (!key.startsWith('TF_VAR_')) env[key] = value;
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
