/**
 * The project's protos against upstream's (viamrobotics/api): every message, field, enum
 * value and method the project declares in a `viam.` package must be upstream's, with the
 * same number, name, type and label. A project message may hold a subset of upstream's
 * fields (it is a projection); one whose name differs says which upstream message it carries
 * with an `upstream: FULL.NAME` line in its comment, and its nested types map along with it.
 * An `int32` where upstream has an enum (or the reverse) is the same on the wire: it is
 * reported as a note, not a difference, as are a `bytes` field holding an encoded message where
 * upstream has the message, and `optional` against plain on a message field (both have
 * presence). Packages outside `viam.` are not upstream's: skipped.
 */
import { SCALAR_TYPES, type FieldDeclaration, type MessageDeclaration, type ProtoTree } from './declarations';

export interface ProtoComparison {
  /** What does not match, one line each (file: declaration: what differs). */
  readonly differences: readonly string[];
  /** What matches on the wire though written otherwise. */
  readonly notes: readonly string[];
  /** Files not compared, with why. */
  readonly skipped: readonly string[];
  /** Messages, enums and services compared. */
  readonly checked: number;
}

/** Only these packages are viamrobotics/api's. */
const UPSTREAM_PACKAGE = /^viam(\.|$)/;

/** A project full name as upstream names it: the nearest enclosing declaration that says its upstream name maps it. */
export function upstreamNameOf(fullName: string, project: ProtoTree): string {
  const parts = fullName.split('.');
  for (let i = parts.length; i > 0; i--) {
    const prefix = parts.slice(0, i).join('.');
    const mapped = project.messages.get(prefix)?.upstream ?? project.enums.get(prefix)?.upstream;
    if (mapped) return [mapped, ...parts.slice(i)].join('.');
  }
  return fullName;
}

interface Context {
  readonly project: ProtoTree;
  readonly upstream: ProtoTree;
  readonly differences: string[];
  readonly notes: string[];
}

function isEnum(type: string, tree: ProtoTree): boolean {
  return tree.enums.has(type);
}

/** A message type (neither scalar nor an enum the tree declares): its fields always have presence. */
function isMessage(type: string, tree: ProtoTree): boolean {
  return !SCALAR_TYPES.has(type) && !tree.enums.has(type);
}

/** The same on the wire: `optional` and plain for a message field (both have presence); else the label as written. */
function sameLabel(ctx: Context, ours: FieldDeclaration, theirs: FieldDeclaration): boolean {
  if (ours.label === theirs.label) return true;
  const presence = new Set<string>(['optional', 'singular']);
  const messageField = isMessage(theirs.type, ctx.upstream) || isMessage(ours.type, ctx.project);
  return messageField && presence.has(ours.label) && presence.has(theirs.label);
}

function described(type: string, name: string): string {
  return name === type ? type : `${type} (upstream ${name})`;
}

function compareField(ctx: Context, where: string, ours: FieldDeclaration, theirs: FieldDeclaration): void {
  const at = `${where} field ${ours.number} ${ours.name}`;
  if (ours.name !== theirs.name) ctx.differences.push(`${at}: upstream names field ${ours.number} "${theirs.name}"`);
  if (!sameLabel(ctx, ours, theirs)) ctx.differences.push(`${at}: ${ours.label} here, ${theirs.label} upstream`);
  if (ours.keyType !== theirs.keyType)
    ctx.differences.push(`${at}: map key ${ours.keyType ?? 'none'} here, ${theirs.keyType ?? 'none'} upstream`);
  const mapped = SCALAR_TYPES.has(ours.type) ? ours.type : upstreamNameOf(ours.type, ctx.project);
  if (mapped === theirs.type) return;
  const enumAsInt =
    (ours.type === 'int32' && isEnum(theirs.type, ctx.upstream)) || (theirs.type === 'int32' && isEnum(ours.type, ctx.project));
  // An encoded message's bytes in a bytes field are the message field's bytes.
  const bytesAsMessage = ours.type === 'bytes' && isMessage(theirs.type, ctx.upstream) && ours.label !== 'repeated';
  if (bytesAsMessage) ctx.notes.push(`${at}: bytes here, ${theirs.type} upstream (its encoded bytes, the same on the wire)`);
  else if (enumAsInt) ctx.notes.push(`${at}: ${described(ours.type, mapped)} here, ${theirs.type} upstream (the same varint on the wire)`);
  else ctx.differences.push(`${at}: type ${described(ours.type, mapped)} here, ${theirs.type} upstream`);
}

function compareMessage(ctx: Context, message: MessageDeclaration): void {
  const name = upstreamNameOf(message.fullName, ctx.project);
  const where = `${message.file}: message ${described(message.fullName, name)}`;
  const theirs = ctx.upstream.messages.get(name);
  if (!theirs) {
    ctx.differences.push(`${where}: upstream has no message ${name}`);
    return;
  }
  const byNumber = new Map(theirs.fields.map((f) => [f.number, f]));
  for (const field of message.fields) {
    const match = byNumber.get(field.number);
    if (match) compareField(ctx, where, field, match);
    else ctx.differences.push(`${where} field ${field.number} ${field.name}: upstream has no field ${field.number}`);
  }
}

function compareEnums(ctx: Context): number {
  let checked = 0;
  for (const e of ctx.project.enums.values()) {
    if (!UPSTREAM_PACKAGE.test(e.fullName)) continue;
    checked++;
    const name = upstreamNameOf(e.fullName, ctx.project);
    const where = `${e.file}: enum ${described(e.fullName, name)}`;
    const theirs = ctx.upstream.enums.get(name);
    if (!theirs) {
      ctx.differences.push(`${where}: upstream has no enum ${name}`);
      continue;
    }
    for (const [value, number] of Object.entries(e.values)) {
      const upstreamNumber = theirs.values[value];
      if (upstreamNumber === undefined) ctx.differences.push(`${where} value ${value}: upstream has no such value`);
      else if (upstreamNumber !== number) ctx.differences.push(`${where} value ${value}: ${number} here, ${upstreamNumber} upstream`);
    }
  }
  return checked;
}

function compareServices(ctx: Context): number {
  let checked = 0;
  for (const service of ctx.project.services.values()) {
    if (!UPSTREAM_PACKAGE.test(service.fullName)) continue;
    checked++;
    const where = `${service.file}: service ${service.fullName}`;
    const theirs = ctx.upstream.services.get(service.fullName);
    if (!theirs) {
      ctx.differences.push(`${where}: upstream has no service ${service.fullName}`);
      continue;
    }
    const byName = new Map(theirs.methods.map((m) => [m.name, m]));
    for (const method of service.methods) {
      const match = byName.get(method.name);
      const at = `${where} rpc ${method.name}`;
      if (!match) {
        ctx.differences.push(`${at}: upstream has no such method`);
        continue;
      }
      for (const side of ['requestType', 'responseType'] as const) {
        const mapped = upstreamNameOf(method[side], ctx.project);
        if (mapped !== match[side]) ctx.differences.push(`${at}: ${side} ${described(method[side], mapped)} here, ${match[side]} upstream`);
      }
      for (const side of ['requestStream', 'responseStream'] as const)
        if (method[side] !== match[side]) ctx.differences.push(`${at}: ${side} ${method[side]} here, ${match[side]} upstream`);
    }
  }
  return checked;
}

/** Compares the project's tree with upstream's. */
export function compareProtoTrees(project: ProtoTree, upstream: ProtoTree): ProtoComparison {
  const ctx: Context = { project, upstream, differences: [], notes: [] };
  const skipped = [...project.packages]
    .filter(([, pkg]) => !UPSTREAM_PACKAGE.test(pkg))
    .map(([file, pkg]) => `${file}: package ${pkg || '(none)'} is not viamrobotics/api's`)
    .sort();
  let checked = 0;
  for (const message of project.messages.values()) {
    if (!UPSTREAM_PACKAGE.test(message.fullName)) continue;
    checked++;
    compareMessage(ctx, message);
  }
  checked += compareEnums(ctx) + compareServices(ctx);
  return { differences: ctx.differences, notes: ctx.notes, skipped, checked };
}
