import { CONFIG_LANGUAGE, FrameSchema, LOG_LEVELS, type SectionDeclaration } from './config-language';
import type { ResourceListName } from './config';
import { parseGoDuration } from './duration';
import { certainIssue, errorIssue, warningIssue, type Issue } from './issue';
import { checkCaptureMethods } from './data-capture';
import { childPath } from './json-path';
import { schemaProblems } from './schema-issues';
import { isObject as isRecord } from './json-value';
import { checkTriggers } from './triggers';

/**
 * Checks of the sections beyond resources, modules and packages. An error is what makes the
 * machine server refuse the whole config (it keeps the one it ran); a warning is what fails
 * one item at run time, named as the machine server would log it.
 */

/** A resource as the checks read it: its normal API and model, and the entry as written. */
interface CheckedResource {
  readonly value: {
    readonly name: string;
    readonly api: string;
    readonly model: string;
    readonly frame?: unknown;
    readonly log_configuration?: unknown;
    readonly service_configs?: unknown;
  };
  readonly path: string;
  readonly list: ResourceListName;
}

const DATA_MANAGER_API = 'rdk:service:data_manager';
/** Sections whose entries (or settings) fail alone when they do not convert. */
const PER_ITEM_SECTIONS: ReadonlySet<string> = new Set([
  'remotes',
  'processes',
  'jobs',
  'log',
  'agent',
  'maintenance',
  'tracing',
  'global_log_configuration',
  'triggers',
]);
const HEARTBEAT_MIN_MS = 30;
const HEARTBEAT_MAX_MS = 60_000;
const FULL_RESOURCE_NAME = /^[\w-]+:[\w-]+:[\w-]+\/.+$/;
const HOST_PORT = /^(\[[^\]]*\]|[^:[\]]*):\d{1,5}$/;

function isLogLevel(level: unknown): boolean {
  return typeof level === 'string' && (LOG_LEVELS as readonly string[]).includes(level.toLowerCase());
}

/** Resources, modules and packages are read entry by entry by the validation, fragment imports by theirs. */
const READ_BY_ENTRY: ReadonlySet<string> = new Set(['components', 'services', 'modules', 'packages', 'fragments', 'fragment_mods']);

/** The sections whose shape their schema checks here, in the order of the language. */
const SHAPED_SECTIONS = (Object.entries(CONFIG_LANGUAGE) as Array<[string, SectionDeclaration]>).filter(([key]) => !READ_BY_ENTRY.has(key));

const NO_BROKEN_SECTIONS: ReadonlySet<string> = new Set();

/** The structure of each declared section: a wrong type is a decoding error of the whole config. */
function sectionShapes(root: Record<string, unknown>, issues: Issue[]): ReadonlySet<string> {
  let broken: Set<string> | undefined;
  for (let i = 0; i < SHAPED_SECTIONS.length; i++) {
    const [key, declared] = SHAPED_SECTIONS[i] as [string, SectionDeclaration];
    const value = root[key];
    if (value === undefined) continue;
    const r = declared.schema.safeParse(value);
    if (r.success) continue;
    (broken ??= new Set()).add(key);
    // An entry of a list (or an agent setting) that does not convert is dropped or corrected alone; other sections fail the config.
    const make = PER_ITEM_SECTIONS.has(key) ? warningIssue : errorIssue;
    for (const p of schemaProblems(r.error.issues, value, { noun: 'field' })) {
      issues.push(
        make(
          'type',
          p.path === '' ? key : p.path.startsWith('[') ? `${key}${p.path}` : `${key}.${p.path}`,
          p.text,
          p.hint ?? `write "${key}" as the config language has it`,
        ),
      );
    }
  }
  return broken ?? NO_BROKEN_SECTIONS;
}

function checkNetwork(network: Record<string, unknown>, issues: Issue[]): void {
  const bind = network.bind_address;
  if (typeof bind === 'string' && bind !== '' && !HOST_PORT.test(bind)) {
    issues.push(
      errorIssue(
        'network',
        'network.bind_address',
        `bind_address ${JSON.stringify(bind)} is not host:port: the machine server refuses the whole config`,
        'write it as host:port, e.g. :8080 or localhost:8080',
      ),
    );
  }
  if ((typeof network.tls_cert_file === 'string') !== (typeof network.tls_key_file === 'string')) {
    issues.push(
      errorIssue(
        'network',
        'network',
        'tls_cert_file and tls_key_file go together: the machine server refuses a config with one of them',
        'set both, or neither',
      ),
    );
  }
  const window = isRecord(network.sessions) ? network.sessions.heartbeat_window : undefined;
  if (typeof window === 'string') {
    const ms = parseGoDuration(window);
    if (ms === undefined || ms < HEARTBEAT_MIN_MS || ms > HEARTBEAT_MAX_MS) {
      issues.push(
        errorIssue(
          'network',
          'network.sessions.heartbeat_window',
          `heartbeat_window ${JSON.stringify(window)} is not a duration between 30ms and 1m`,
          'write a Go duration such as 2s',
        ),
      );
    }
  }
}

function checkAuth(auth: Record<string, unknown>, issues: Issue[]): void {
  const handlers = Array.isArray(auth.handlers) ? auth.handlers : [];
  const seen = new Set<string>();
  handlers.forEach((h, i) => {
    if (!isRecord(h)) return;
    const path = `auth.handlers[${i}]`;
    const type = h.type;
    if (type !== 'api-key') {
      issues.push(
        errorIssue(
          'auth',
          childPath(path, 'type'),
          `auth handler type ${JSON.stringify(type)} is not one a config may hold: the machine server refuses the whole config`,
          'use "api-key"',
        ),
      );
    } else {
      const keys = isRecord(h.config) ? h.config.keys : undefined;
      if (!Array.isArray(keys) || keys.length === 0)
        issues.push(
          errorIssue('auth', childPath(path, 'config'), 'an api-key handler needs a non-empty "keys" list', 'list the key ids in "keys"'),
        );
    }
    if (typeof type === 'string') {
      if (seen.has(type))
        issues.push(errorIssue('auth', childPath(path, 'type'), `auth handler type ${type} is given twice`, 'keep one handler per type'));
      seen.add(type);
    }
  });
}

function checkFrame(frame: unknown, path: string, owner: string, issues: Issue[]): void {
  if (!isRecord(frame)) return;
  if (typeof frame.parent !== 'string' || frame.parent === '') {
    issues.push(
      warningIssue(
        'frame',
        childPath(path, 'parent'),
        `the frame of "${owner}" has no parent: it is left out of the frame system`,
        'set "parent", e.g. "world"',
      ),
    );
  }
  const parsed = FrameSchema.safeParse(frame);
  if (!parsed.success) {
    for (const p of schemaProblems(parsed.error.issues, frame, { noun: 'field' })) {
      issues.push(
        warningIssue(
          'frame',
          p.path.startsWith('[') ? `${path}${p.path}` : `${path}.${p.path}`,
          `the frame of "${owner}" does not parse (${p.text}): it is left out of the frame system`,
          'give translation and orientation values as numbers',
        ),
      );
    }
  }
}

function checkResources(resources: readonly CheckedResource[], issues: Issue[]): void {
  let dataManagers = 0;
  for (const r of resources) {
    if (r.value.frame !== undefined) {
      if (r.list === 'services')
        issues.push(
          warningIssue(
            'frame',
            childPath(r.path, 'frame'),
            `service "${r.value.name}" has a frame, which the machine server drops`,
            'frames belong to components',
          ),
        );
      else checkFrame(r.value.frame, childPath(r.path, 'frame'), r.value.name, issues);
    }
    const level = isRecord(r.value.log_configuration) ? r.value.log_configuration.level : undefined;
    if (level !== undefined && !isLogLevel(level)) {
      issues.push(
        warningIssue(
          'log-level',
          childPath(childPath(r.path, 'log_configuration'), 'level'),
          `resource "${r.value.name}" has log level ${JSON.stringify(level)}: it logs at info`,
          'use debug, info, warn or error',
        ),
      );
    }
    if (r.value.service_configs !== undefined) issues.push(...checkCaptureMethods(r.value, r.path));
    if (r.value.api === DATA_MANAGER_API && ++dataManagers === 2) {
      issues.push(
        certainIssue(
          'max-instances',
          childPath(r.path, 'name'),
          `resource "${r.value.name}" will not start: a machine runs at most one data manager`,
          'keep one data_manager service',
        ),
      );
    }
  }
}

function checkLists(root: Record<string, unknown>, broken: ReadonlySet<string>, issues: Issue[]): void {
  if (!broken.has('processes') && Array.isArray(root.processes) && root.processes.length > 0) {
    issues.push(
      warningIssue(
        'ignored-section',
        'processes',
        'processes are ignored by viam-server v0.74.0 and later',
        'run them another way (a module, a system service); fleetform keeps them as written',
      ),
    );
  }
  if (!broken.has('remotes') && Array.isArray(root.remotes)) {
    root.remotes.forEach((remote, i) => {
      if (!isRecord(remote)) return;
      const name = typeof remote.name === 'string' ? remote.name : `#${i}`;
      if (typeof remote.address !== 'string' || remote.address === '')
        issues.push(
          warningIssue('remote', `remotes[${i}].address`, `remote "${name}" will not connect: it has no address`, 'set "address"'),
        );
      if (remote.frame !== undefined) checkFrame(remote.frame, `remotes[${i}].frame`, name, issues);
    });
  }
  if (!broken.has('jobs') && Array.isArray(root.jobs)) {
    root.jobs.forEach((job, i) => {
      if (!isRecord(job)) return;
      const missing = ['name', 'schedule', 'resource', 'method'].filter((k) => typeof job[k] !== 'string' || job[k] === '');
      if (missing.length > 0)
        issues.push(
          warningIssue(
            'job',
            `jobs[${i}]`,
            `job ${typeof job.name === 'string' ? `"${job.name}"` : `#${i}`} is skipped: it has no ${missing.join(', ')}`,
            'give a job its name, schedule, resource and method',
          ),
        );
    });
  }
  if (!broken.has('log') && Array.isArray(root.log)) {
    root.log.forEach((entry, i) => {
      if (isRecord(entry) && !isLogLevel(entry.level))
        issues.push(
          warningIssue(
            'log-level',
            `log[${i}].level`,
            `log pattern ${JSON.stringify(entry.pattern)} is skipped: level ${JSON.stringify(entry.level)}`,
            'use debug, info, warn or error',
          ),
        );
    });
  }
  const sensor = isRecord(root.maintenance) ? root.maintenance.sensor_name : undefined;
  if (!broken.has('maintenance') && typeof sensor === 'string' && !FULL_RESOURCE_NAME.test(sensor)) {
    issues.push(
      warningIssue(
        'maintenance',
        'maintenance.sensor_name',
        `maintenance sensor ${JSON.stringify(sensor)} is not a full resource name: reconfiguring is always allowed`,
        'write it as rdk:component:sensor/<name>',
      ),
    );
  }
}

/** The problems of every section beyond modules and packages, and of resources' frames, log levels and data capture. */
export function checkLanguageSections(root: Record<string, unknown>, resources: readonly CheckedResource[]): Issue[] {
  const issues: Issue[] = [];
  const broken = sectionShapes(root, issues);
  if (!broken.has('network') && isRecord(root.network)) checkNetwork(root.network, issues);
  if (!broken.has('auth') && isRecord(root.auth)) checkAuth(root.auth, issues);
  checkResources(resources, issues);
  checkLists(root, broken, issues);
  if (!broken.has('triggers') && Array.isArray(root.triggers)) issues.push(...checkTriggers(root.triggers));
  return issues;
}
