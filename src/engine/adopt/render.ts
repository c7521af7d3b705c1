import { conventionalModuleName } from '../../domain/names';
import { DEFAULT_DATASET_TYPE } from '../../domain/dataset-type';
import { ModelFramework, ModelType } from '../../domain/training';
import { propSection } from '../../domain/config-language';
import type { JsonValue } from '../json';
import type {
  Adoption,
  DataPipelineDecl,
  DatasetDecl,
  FragmentDecl,
  ImportDecl,
  JobDecl,
  MachineDecl,
  OrganizationDefaultsDecl,
  PartDecl,
  Reference,
} from './adoption';
import { Code, CodeWriter, literal, stringLiteral, type Literal } from './code-writer';
import { placeholderName } from './fragment-code';
import { isEmptyConfig, SecretRef, type MachineConfigCode, type OverrideCode, type ValueCode } from './machine-code';
import { ConstructIds, VariableNames } from './names';

/** Which CDK the generated code is written for: its core package and fleetform's entry for it. */
export type CdkFlavour = 'cdktf' | 'cdktn';

export interface RenderOptions {
  /** The stack class's name, e.g. `AdoptedStack`. */
  readonly className: string;
  readonly cdk: CdkFlavour;
  /** Write `importFrom(id)` for every adopted object, so Terraform imports them at its first apply. */
  readonly terraformImports?: boolean;
  /** The file is the app's entry: it also makes the App, the stack (by this name) and synthesizes. */
  readonly appStackName?: string;
}

const FLEETFORM_ENTRY: Record<CdkFlavour, string> = { cdktf: 'fleetform', cdktn: 'fleetform/cdktn' };

function refCode(ref: Reference, vars: ReadonlyMap<string, string>): Literal {
  if ('id' in ref) return ref.id;
  const name = vars.get(ref.construct);
  return name === undefined ? ref.construct : new Code(name);
}

/** A value of a fragment's config with each variable placeholder written as `fragment.variable(name)`. */
function withVariables(value: JsonValue, fragmentVar: string): Literal {
  const name = placeholderName(value);
  if (name !== undefined) return new Code(`${fragmentVar}.variable(${stringLiteral(name)})`);
  if (Array.isArray(value)) return value.map((v) => withVariables(v, fragmentVar));
  if (value === null || typeof value !== 'object') return value;
  const out: { [key: string]: Literal } = {};
  for (const [k, v] of Object.entries(value)) out[k] = withVariables(v, fragmentVar);
  return out;
}

/** A value of the config code as a literal: each secret by reference to its environment variable. */
function valueLiteral(value: ValueCode | undefined, used: Set<string>): Literal {
  if (value instanceof SecretRef) {
    used.add('Secret');
    return secretReferenceCode(value.variable);
  }
  if (value === undefined || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return (value as readonly ValueCode[]).map((v) => valueLiteral(v, used));
  const out: { [key: string]: Literal } = {};
  for (const [k, v] of Object.entries(value as { [key: string]: ValueCode })) out[k] = valueLiteral(v, used);
  return out;
}

/** `.addConfigOverride(path, value)` per override, chained. */
function overrideCalls(w: CodeWriter, overrides: readonly OverrideCode[], used: Set<string>): string {
  return overrides
    .map(
      (o) =>
        `.addConfigOverride(${stringLiteral(o.path)}, ${o.value === undefined ? 'undefined' : w.literal(valueLiteral(o.value, used))})`,
    )
    .join('');
}

/**
 * The statements declaring a machine's (or, with `fragmentVar`, a fragment's) config inside
 * `machineVar`: modules, packages, resources, remotes and processes, then the overrides.
 */
function writeConfig(
  w: CodeWriter,
  machineVar: string,
  config: MachineConfigCode,
  used: Set<string>,
  vars: VariableNames,
  fragmentVar?: string,
  settingsAsOverrides = fragmentVar !== undefined,
): void {
  const ids = new ConstructIds();
  const moduleVars = config.modules.map(() => '');
  const resourceVars = config.resources.map(() => '');
  const modelUsers = new Set(config.resources.flatMap((r) => (r.model !== undefined && 'module' in r.model ? [r.model.module] : [])));
  const dependedOn = new Set(config.resources.flatMap((r) => (r.dependsOn ?? []).filter((d): d is number => typeof d === 'number')));
  config.modules.forEach((m, i) => {
    const id = ids.take(m.name, 'module');
    const defaultName = m.moduleId !== undefined ? (conventionalModuleName(m.moduleId) ?? id) : id;
    const sensitiveEnv = Object.fromEntries(Object.entries(m.sensitiveEnv).map(([k, variable]) => [k, secretReferenceCode(variable)]));
    if (Object.keys(sensitiveEnv).length > 0) used.add('Secret');
    const props: Literal = {
      moduleId: m.moduleId,
      name: m.name === defaultName ? undefined : m.name,
      version: m.version,
      executablePath: m.executablePath,
      env: Object.keys(m.env).length > 0 ? m.env : undefined,
      sensitiveEnv: Object.keys(sensitiveEnv).length > 0 ? sensitiveEnv : undefined,
      ...m.settings,
    };
    const statement = `new Module(${machineVar}, ${stringLiteral(id)}, ${w.literal(props)})${overrideCalls(w, m.overrides, used)};`;
    if (modelUsers.has(i)) {
      moduleVars[i] = vars.take(m.name, machineVar);
      w.line(`const ${moduleVars[i]} = ${statement}`);
    } else w.line(statement);
  });
  for (const p of config.packages) {
    const id = ids.take(p.name, 'package');
    const props: Literal = { name: p.name === id ? undefined : p.name, package: p.package, version: p.version, type: p.type };
    w.line(`new Package(${machineVar}, ${stringLiteral(id)}, ${w.literal(props)});`);
  }
  if (config.packages.length > 0) used.add('Package');
  config.resources.forEach((r, i) => {
    const id = ids.take(r.name, 'resource');
    const model =
      r.model === undefined
        ? undefined
        : 'module' in r.model
          ? new Code(`${moduleVars[r.model.module]}.model(${stringLiteral(r.model.model)})`)
          : r.model.triplet;
    const dependsOn = r.dependsOn?.map((d) =>
      typeof d === 'number' ? new Code(resourceVars[d] || stringLiteral(config.resources[d]?.name ?? '')) : d,
    );
    const attributes =
      r.attributes === undefined ? undefined : fragmentVar === undefined ? r.attributes : withVariables(r.attributes, fragmentVar);
    const props: Literal = {
      name: r.name === id ? undefined : r.name,
      api: r.api,
      type: r.type,
      namespace: r.namespace,
      model,
      attributes,
      dependsOn,
      frame: r.frame,
      serviceConfigs: r.serviceConfigs,
      logConfiguration: r.logConfiguration,
      disabled: r.disabled,
    };
    const construct = r.list === 'services' ? 'Service' : 'Component';
    used.add(construct);
    const statement = `new ${construct}(${machineVar}, ${stringLiteral(id)}, ${w.literal(props)})${overrideCalls(w, r.overrides, used)};`;
    if (dependedOn.has(i)) {
      resourceVars[i] = vars.take(r.name, machineVar);
      w.line(`const ${resourceVars[i]} = ${statement}`);
    } else w.line(statement);
  });
  for (const e of config.entries) {
    used.add(e.construct);
    w.line(
      `new ${e.construct}(${machineVar}, ${stringLiteral(ids.take(e.id, e.construct.toLowerCase()))}, ${w.literal(valueLiteral(e.props, used))});`,
    );
  }
  // A fragment (or a machine made before its shared config) takes no machine props: its sections are overrides.
  const settings = !settingsAsOverrides
    ? []
    : Object.entries(config.settings).map(([prop, value]) => ({ path: propSection(prop) ?? prop, value }));
  for (const o of [...settings, ...config.overrides]) {
    w.line(`${machineVar}${overrideCalls(w, [o], used)};`);
  }
  if (config.modules.length > 0) used.add('Module');
}

/** A secret by reference to the environment variable that holds it where plans run: code and synthesized files hold only its name. */
function secretReferenceCode(variable: string): Code {
  return new Code(`Secret.fromEnv(${stringLiteral(variable)})`);
}

/** `holderVar.useFragment(fragment, {...});` per import, in the order the config lists them; secret variables by reference. */
function writeImports(
  w: CodeWriter,
  holderVar: string,
  imports: readonly ImportDecl[],
  vars: ReadonlyMap<string, string>,
  used: Set<string>,
): void {
  for (const i of imports) {
    const secrets = Object.entries(i.secretVariables ?? {}).map(([key, variable]): [string, Literal] => [
      key,
      secretReferenceCode(variable),
    ]);
    if (secrets.length > 0) used.add('Secret');
    const variables: Literal = i.variables || secrets.length > 0 ? { ...i.variables, ...Object.fromEntries(secrets) } : undefined;
    const options: Literal = {
      version: i.version,
      prefix: i.prefix,
      variables,
      disabled: i.disabled,
      mods: i.mods,
      bareId: i.bareId === true ? true : undefined,
    };
    w.line(`${holderVar}.useFragment(${literal(refCode(i.fragment, vars), 0)}${propsArgument(w, options)});`);
  }
}

/** `new OrganizationDefaults(this, id, { fragments: [...] })`: each default fragment with its version, prefix and variables. */
function defaultsStatement(w: CodeWriter, decl: OrganizationDefaultsDecl, vars: ReadonlyMap<string, string>): string {
  const fragments: Literal = decl.imports.map((i) => ({
    fragment: refCode(i.fragment, vars),
    version: i.version,
    prefix: i.prefix,
    variables: i.variables,
  }));
  return `new OrganizationDefaults(this, ${stringLiteral(decl.constructId)}, ${w.literal({ fragments })});`;
}

/** A fragment: its construct, its config, its nested imports, then its tags. */
function writeFragment(
  w: CodeWriter,
  f: FragmentDecl,
  vars: Map<string, string>,
  names: VariableNames,
  used: Set<string>,
  declare: (constructId: string, statement: string) => void,
): void {
  const name = names.take(f.constructId);
  vars.set(f.constructId, name);
  const props: Literal = {
    name: f.name === f.constructId ? undefined : f.name,
    visibility: f.visibility === 'private' ? undefined : f.visibility,
    emptyLists: emptyListsLiteral(f.config),
  };
  w.line(`const ${name} = new Fragment(this, ${stringLiteral(f.constructId)}${propsArgument(w, props)});`);
  writeConfig(w, name, f.config, used, names, name);
  writeImports(w, name, f.imports, vars, used);
  for (const t of f.tags)
    declare(
      t.constructId,
      `new FragmentTag(this, ${stringLiteral(t.constructId)}, ${w.literal({ fragment: new Code(name), tag: t.tag, revision: t.revision })});`,
    );
  if (f.tags.length > 0) used.add('FragmentTag');
}

/**
 * A machine's part besides its main one: `new Part(machine, id, {...})` with its settings
 * as props, then its config and fragment imports inside it. It is named (under its
 * address's key in `vars`) when statements follow or Terraform imports it.
 */
function writePart(
  w: CodeWriter,
  machineVar: string,
  address: string,
  part: PartDecl,
  vars: Map<string, string>,
  names: VariableNames,
  used: Set<string>,
  named: boolean,
): void {
  used.add('Part');
  const settings = valueLiteral(part.config.settings, used) as { [key: string]: Literal };
  const props: Literal = {
    name: part.name === part.constructId ? undefined : part.name,
    ...settings,
    emptyLists: emptyListsLiteral(part.config),
    acknowledged: acknowledgedLiteral(part.acknowledged),
  };
  const statement = `new Part(${machineVar}, ${stringLiteral(part.constructId)}${propsArgument(w, props)});`;
  if (!named && isEmptyConfig({ ...part.config, settings: {} }) && part.imports.length === 0) {
    w.line(statement);
    return;
  }
  const name = names.take(part.name, machineVar);
  vars.set(address, name);
  w.line(`const ${name} = ${statement}`);
  writeConfig(w, name, part.config, used, names);
  writeImports(w, name, part.imports, vars, used);
}

function jobStatement(w: CodeWriter, decl: JobDecl, vars: ReadonlyMap<string, string>, used: Set<string>): string {
  const { job } = decl;
  const dataset = refCode(decl.dataset, vars);
  if (job.isCustomJob) {
    used.add('CustomTrainingJob');
    const props: Literal = {
      dataset,
      registryItemId: job.registryItemId,
      registryItemVersion: job.registryItemVersion,
      modelName: job.modelName,
      modelVersion: job.modelVersion,
      arguments: Object.keys(job.arguments).length > 0 ? job.arguments : undefined,
      containerVersion: job.containerVersion || undefined,
    };
    return `new CustomTrainingJob(this, ${stringLiteral(decl.constructId)}, ${w.literal(props)});`;
  }
  used.add('TrainingJob').add('ModelType');
  const framework =
    job.modelFramework === ModelFramework.UNSPECIFIED
      ? undefined
      : new Code(`ModelFramework.${enumKey(ModelFramework, job.modelFramework)}`);
  if (framework) used.add('ModelFramework');
  const props: Literal = {
    dataset,
    modelName: job.modelName,
    modelVersion: job.modelVersion,
    modelType: new Code(`ModelType.${enumKey(ModelType, job.modelType)}`),
    modelFramework: framework,
    tags: [...job.tags],
  };
  return `new TrainingJob(this, ${stringLiteral(decl.constructId)}, ${w.literal(props)});`;
}

/** A dataset's props: its name unless the construct id is it, its type unless binary (the default). */
function datasetProps(d: DatasetDecl): Literal {
  return { name: d.name === d.constructId ? undefined : d.name, type: d.type === DEFAULT_DATASET_TYPE ? undefined : d.type };
}

/** The member of an enum object (`ModelType`, ...) holding `value`, as code names it. */
function enumKey(members: Readonly<Record<string, number>>, value: number): string {
  return Object.entries(members).find(([, v]) => v === value)?.[0] ?? 'UNSPECIFIED';
}

/** `, { ...props }`, or nothing when every prop is left to its default. */
function propsArgument(w: CodeWriter, props: Literal): string {
  const text = w.literal(props);
  return text === '{}' ? '' : `, ${text}`;
}

/** A data pipeline's props: what the service reports, its defaults left out (backfill is not reported: left out). */
function dataPipelineProps(d: DataPipelineDecl): Literal {
  const p = d.pipeline;
  return {
    name: p.name === d.constructId ? undefined : p.name,
    query: [...p.stages],
    schedule: p.schedule,
    dataSourceType: p.dataSourceType === 'hot_storage' ? 'hot_storage' : undefined,
    enabled: p.enabled ? undefined : false,
  };
}

/** The `emptyLists` prop of a config's construct: the lists it holds, when not the default ones. */
function emptyListsLiteral(config: MachineConfigCode): Literal {
  return config.emptyLists === undefined ? undefined : [...config.emptyLists];
}

/** The `acknowledged` prop of a machine or part: its certain failures, or nothing when it has none. */
function acknowledgedLiteral(list: MachineDecl['acknowledged']): Literal {
  return list.length > 0 ? list.map((a) => ({ code: a.code, path: a.path, reason: a.reason })) : undefined;
}

/** A machine's props: its settings, unless a shared config declares them, and the lists its config holds (a prop even with a shared config). */
function machineProps(m: MachineDecl, vars: ReadonlyMap<string, string>, used: Set<string>, blocks: Adoption['blocks']): Literal {
  const config = typeof m.config === 'number' ? blocks[m.config]?.config : m.config;
  const settings = typeof m.config === 'number' ? {} : (valueLiteral(m.config.settings, used) as { [key: string]: Literal });
  const acknowledged = acknowledgedLiteral(m.acknowledged);
  return {
    name: m.name === m.constructId ? undefined : m.name,
    location: refCode(m.location, vars),
    ...settings,
    emptyLists: config === undefined ? undefined : emptyListsLiteral(config),
    acknowledged,
  };
}

/** The stack's body as it is written: the names taken, the constructs' variables and the fleetform names used. */
interface StackBody {
  readonly adoption: Adoption;
  readonly body: CodeWriter;
  /** Each named construct's variable. */
  readonly vars: Map<string, string>;
  readonly names: VariableNames;
  /** The fleetform names the code imports. */
  readonly used: Set<string>;
  /** Whether the code imports each adopted object with Terraform (`importFrom`). */
  readonly terraformImports: boolean;
  /** Writes a construct's statement, as a variable when code refers to it. */
  declare(constructId: string, statement: string): void;
}

/** The constructs other statements refer to, so they are named. */
function referencedConstructs(adoption: Adoption): Set<string> {
  return new Set<string>([
    ...adoption.locations.flatMap((l) => (l.parent && 'construct' in l.parent ? [l.parent.construct] : [])),
    ...adoption.machines.flatMap((m) => ('construct' in m.location ? [m.location.construct] : [])),
    ...adoption.jobs.flatMap((j) => ('construct' in j.dataset ? [j.dataset.construct] : [])),
    // A machine importing fragments, or with parts besides its main one, is named: its imports and parts are statements of their own.
    ...adoption.machines.flatMap((m) => (m.imports.length > 0 || m.parts.length > 0 ? [m.constructId] : [])),
  ]);
}

function startStackBody(adoption: Adoption, options: RenderOptions): StackBody {
  const body = new CodeWriter();
  const vars = new Map<string, string>();
  const names = new VariableNames(adoption.blocks.map((b) => b.functionName));
  const referenced = referencedConstructs(adoption);
  const terraformImports = options.terraformImports ?? false;
  const declare = (constructId: string, statement: string): void => {
    if (!terraformImports && !referenced.has(constructId)) {
      body.line(statement);
      return;
    }
    const name = names.take(constructId);
    vars.set(constructId, name);
    body.line(`const ${name} = ${statement}`);
  };
  body.indentTo(2);
  return { adoption, body, vars, names, used: new Set<string>(['FleetProvider']), terraformImports, declare };
}

function writeLocationsAndFragments(s: StackBody): void {
  const { adoption, body } = s;
  if (adoption.locations.length > 0) {
    body.line();
    s.used.add('Location');
  }
  for (const l of adoption.locations) {
    const props: Literal = {
      name: l.name === l.constructId ? undefined : l.name,
      parent: l.parent ? refCode(l.parent, s.vars) : undefined,
    };
    s.declare(l.constructId, `new Location(this, ${stringLiteral(l.constructId)}${propsArgument(body, props)});`);
  }
  if (adoption.fragments.length > 0) s.used.add('Fragment');
  for (const f of adoption.fragments) {
    body.line();
    writeFragment(body, f, s.vars, s.names, s.used, s.declare);
  }
}

/** A machine's statement: a shared config's function around it, or its config inline below it; then its imports and parts. */
function writeMachine(s: StackBody, m: MachineDecl): void {
  const { adoption, body } = s;
  const statement = `new Machine(this, ${stringLiteral(m.constructId)}${propsArgument(body, machineProps(m, s.vars, s.used, adoption.blocks))});`;
  const shared = typeof m.config === 'number' ? adoption.blocks[m.config] : undefined;
  const empty = typeof m.config !== 'number' && isEmptyConfig(m.config);
  if (shared) {
    s.declare(m.constructId, `${shared.functionName}(${statement.slice(0, -1)});`);
  } else if (empty || typeof m.config === 'number') {
    s.declare(m.constructId, statement);
  } else {
    const name = s.names.take(m.constructId);
    s.vars.set(m.constructId, name);
    body.line(`const ${name} = ${statement}`);
    writeConfig(body, name, m.config, s.used, s.names);
  }
  const machineVar = s.vars.get(m.constructId);
  if (machineVar === undefined) return;
  writeImports(body, machineVar, m.imports, s.vars, s.used);
  for (const part of m.parts) {
    writePart(body, machineVar, `${m.constructId}_${part.constructId}`, part, s.vars, s.names, s.used, s.terraformImports);
  }
}

function writeMachines(s: StackBody): void {
  if (s.adoption.machines.length > 0) s.used.add('Machine');
  let previousInline = true;
  for (const m of s.adoption.machines) {
    const inline = (typeof m.config !== 'number' && !isEmptyConfig(m.config)) || m.imports.length > 0;
    // A machine with its config inline stands apart; one-line machines stay together.
    if (inline || previousInline) s.body.line();
    previousInline = inline;
    writeMachine(s, m);
  }
}

/** The organization's defaults, datasets, training jobs and data pipelines. */
function writeDefaultsAndData(s: StackBody): void {
  const { adoption, body } = s;
  if (adoption.defaults) {
    body.line();
    s.used.add('OrganizationDefaults');
    s.declare(adoption.defaults.constructId, defaultsStatement(body, adoption.defaults, s.vars));
  }
  if (adoption.datasets.length > 0) {
    body.line();
    s.used.add('Dataset');
  }
  for (const d of adoption.datasets)
    s.declare(d.constructId, `new Dataset(this, ${stringLiteral(d.constructId)}${propsArgument(body, datasetProps(d))});`);
  if (adoption.jobs.length > 0) body.line();
  for (const j of adoption.jobs) s.declare(j.constructId, jobStatement(body, j, s.vars, s.used));
  const pipelines = adoption.dataPipelines ?? [];
  if (pipelines.length > 0) {
    body.line();
    s.used.add('DataPipeline');
  }
  for (const d of pipelines)
    s.declare(d.constructId, `new DataPipeline(this, ${stringLiteral(d.constructId)}${propsArgument(body, dataPipelineProps(d))});`);
}

function writeTerraformImports(s: StackBody): void {
  if (!s.terraformImports || s.adoption.imports.length === 0) return;
  s.body.line();
  s.body.line('// Terraform imports each adopted object at its first apply (import blocks), then manages it.');
  for (const { address, id } of s.adoption.imports) {
    const name = s.vars.get(address.slice(address.indexOf('.') + 1));
    if (name !== undefined) s.body.line(`${name}.importFrom(${stringLiteral(id)});`);
  }
}

/** The functions of the configs machines share, below the stack. */
function sharedConfigFunctions(blocks: Adoption['blocks'], used: Set<string>): string {
  const functions = new CodeWriter();
  for (const b of blocks) {
    functions.line();
    functions.line(`/** The config machines ${b.machines.join(', ')} share. */`);
    functions.block(`function ${b.functionName}(machine: Machine): Machine`, () => {
      writeConfig(functions, 'machine', b.config, used, new VariableNames(['machine']), undefined, true);
      functions.line('return machine;');
    });
  }
  return functions.toString();
}

/** The file's imports and the stack class around its body. */
function stackClass(adoption: Adoption, options: RenderOptions, body: string, used: ReadonlySet<string>): string {
  const out = new CodeWriter();
  out.line(`import { ${options.appStackName === undefined ? '' : 'App, '}TerraformStack } from '${options.cdk}';`);
  out.line(`import type { Construct } from 'constructs';`);
  out.line(`import { ${[...used].sort().join(', ')} } from '${FLEETFORM_ENTRY[options.cdk]}';`);
  out.line();
  out.line('/**');
  out.line(` * Organization ${adoption.organizationId} as code, as \`fleetform adopt\` read it: ${summary(adoption)}.`);
  out.line(' * From here on this file is the source of truth: edit it, then `fleetform plan`.');
  out.line(' */');
  out.block(`export class ${options.className} extends TerraformStack`, () => {
    out.block('constructor(scope: Construct, id: string)', () => {
      out.line('super(scope, id);');
      out.raw(body);
    });
  });
  return out.toString();
}

/** The app that synthesizes the stack, when the file is its own main. */
function appCode(options: RenderOptions): string {
  if (options.appStackName === undefined) return '';
  const app = new CodeWriter();
  app.line();
  app.line('const app = new App();');
  app.line(`new ${options.className}(app, ${stringLiteral(options.appStackName)});`);
  app.line('app.synth();');
  return app.toString();
}

/**
 * The TypeScript of an adopted organization: one stack class in the house style, its
 * shared configs as functions below it; secrets by reference (`Secret.fromEnv`).
 */
export function renderAdoption(adoption: Adoption, options: RenderOptions): string {
  const s = startStackBody(adoption, options);
  s.body.line(`new FleetProvider(this, 'cloud', ${s.body.literal({ organizationId: adoption.organizationId })});`);
  writeLocationsAndFragments(s);
  writeMachines(s);
  writeDefaultsAndData(s);
  writeTerraformImports(s);
  // The shared functions are written before the imports line, as they use names too.
  const functions = sharedConfigFunctions(adoption.blocks, s.used);
  return stackClass(adoption, options, s.body.toString(), s.used) + functions + appCode(options);
}

function count(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

/** One line: how many of each kind of object the adoption declares. */
export function summary(adoption: Adoption): string {
  return [
    count(adoption.locations.length, 'location'),
    count(adoption.machines.length, 'machine'),
    count(adoption.datasets.length, 'dataset'),
    count(adoption.jobs.length, 'training job'),
    count(adoption.fragments.length, 'fragment'),
    count(
      adoption.fragments.reduce((n, f) => n + f.tags.length, 0),
      'fragment tag',
    ),
    ...((adoption.dataPipelines?.length ?? 0) > 0 ? [count(adoption.dataPipelines?.length ?? 0, 'data pipeline')] : []),
  ].join(', ');
}

/** A main file for a project that has none: one app with the adopted stack. */
export function renderMain(className: string, importPath: string, stackName: string, cdk: CdkFlavour): string {
  const w = new CodeWriter();
  w.line(`import { App } from '${cdk}';`);
  w.line(`import { ${className} } from ${stringLiteral(importPath)};`);
  w.line();
  w.line('const app = new App();');
  w.line(`new ${className}(app, ${stringLiteral(stackName)});`);
  w.line('app.synth();');
  return w.toString();
}

export { literal };
