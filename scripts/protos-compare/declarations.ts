/**
 * The declarations of a tree of .proto files: each message's fields, each enum's values and
 * each service's methods, by full name, with every field type resolved to a full name by the
 * language's scoping rule (innermost scope first) among the tree's own declarations. A type
 * the tree does not declare (an import from another package) keeps the name it is written with.
 */
import * as protobuf from 'protobufjs';

export interface ProtoSource {
  /** Path of the file, relative to the tree's root. */
  readonly path: string;
  readonly text: string;
}

export type FieldLabel = 'singular' | 'optional' | 'repeated' | 'map';

export interface FieldDeclaration {
  readonly name: string;
  readonly number: number;
  /** A scalar's name or a message's or enum's full name (no leading dot); a map's value type. */
  readonly type: string;
  readonly label: FieldLabel;
  /** A map's key type. */
  readonly keyType?: string;
}

export interface MessageDeclaration {
  readonly fullName: string;
  readonly file: string;
  /** The full name of the upstream message it carries, when the names differ (a `upstream: NAME` comment line). */
  readonly upstream?: string;
  readonly fields: readonly FieldDeclaration[];
}

export interface EnumDeclaration {
  readonly fullName: string;
  readonly file: string;
  readonly upstream?: string;
  readonly values: Readonly<Record<string, number>>;
}

export interface MethodDeclaration {
  readonly name: string;
  readonly requestType: string;
  readonly responseType: string;
  readonly requestStream: boolean;
  readonly responseStream: boolean;
}

export interface ServiceDeclaration {
  readonly fullName: string;
  readonly file: string;
  readonly methods: readonly MethodDeclaration[];
}

export interface ProtoTree {
  readonly messages: ReadonlyMap<string, MessageDeclaration>;
  readonly enums: ReadonlyMap<string, EnumDeclaration>;
  readonly services: ReadonlyMap<string, ServiceDeclaration>;
  /** Each file's package (empty when it declares none). */
  readonly packages: ReadonlyMap<string, string>;
}

export const SCALAR_TYPES: ReadonlySet<string> = new Set([
  'double',
  'float',
  'int32',
  'int64',
  'uint32',
  'uint64',
  'sint32',
  'sint64',
  'fixed32',
  'fixed64',
  'sfixed32',
  'sfixed64',
  'bool',
  'string',
  'bytes',
]);

const UPSTREAM_COMMENT = /^upstream:\s*([A-Za-z_][\w.]*)\s*$/m;

/** A proto file that does not parse, named with the parser's reason. */
export class ProtoParseError extends Error {
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(`${file}: ${reason}`);
    this.name = 'ProtoParseError';
  }
}

interface RawField {
  readonly name: string;
  readonly number: number;
  readonly written: string;
  readonly label: FieldLabel;
  readonly keyType?: string;
}

interface RawMessage {
  readonly fullName: string;
  readonly file: string;
  readonly upstream?: string;
  readonly fields: readonly RawField[];
}

interface RawMethod extends Omit<MethodDeclaration, 'requestType' | 'responseType'> {
  readonly requestWritten: string;
  readonly responseWritten: string;
}

interface Collected {
  readonly messages: RawMessage[];
  readonly enums: EnumDeclaration[];
  readonly services: Array<{ fullName: string; file: string; methods: RawMethod[] }>;
}

function upstreamOf(comment: string | null): string | undefined {
  return comment ? UPSTREAM_COMMENT.exec(comment)?.[1] : undefined;
}

function fullNameOf(object: protobuf.ReflectionObject): string {
  return object.fullName.replace(/^\./, '');
}

function labelOf(field: protobuf.Field): FieldLabel {
  if (field instanceof protobuf.MapField) return 'map';
  if (field.repeated) return 'repeated';
  return field.options?.proto3_optional === true ? 'optional' : 'singular';
}

function rawField(field: protobuf.Field): RawField {
  const keyType = field instanceof protobuf.MapField ? field.keyType : undefined;
  return { name: field.name, number: field.id, written: field.type, label: labelOf(field), ...(keyType ? { keyType } : {}) };
}

function collect(namespace: protobuf.NamespaceBase, file: string, into: Collected): void {
  for (const nested of namespace.nestedArray) {
    const fullName = fullNameOf(nested);
    if (nested instanceof protobuf.Type) {
      const upstream = upstreamOf(nested.comment);
      into.messages.push({ fullName, file, ...(upstream ? { upstream } : {}), fields: nested.fieldsArray.map(rawField) });
    } else if (nested instanceof protobuf.Enum) {
      const upstream = upstreamOf(nested.comment);
      into.enums.push({ fullName, file, ...(upstream ? { upstream } : {}), values: { ...nested.values } });
    } else if (nested instanceof protobuf.Service) {
      const methods = nested.methodsArray.map((m) => ({
        name: m.name,
        requestWritten: m.requestType,
        responseWritten: m.responseType,
        requestStream: m.requestStream === true,
        responseStream: m.responseStream === true,
      }));
      into.services.push({ fullName, file, methods });
    }
    if (nested instanceof protobuf.Namespace || nested instanceof protobuf.Type) collect(nested, file, into);
  }
}

/** `written` as the full name it refers to from `scope` (a message's or package's full name). */
export function resolveTypeName(written: string, scope: string, declared: ReadonlySet<string>): string {
  if (SCALAR_TYPES.has(written)) return written;
  if (written.startsWith('.')) return written.slice(1);
  const parts = scope === '' ? [] : scope.split('.');
  for (let i = parts.length; i >= 0; i--) {
    const candidate = [...parts.slice(0, i), written].join('.');
    if (declared.has(candidate)) return candidate;
  }
  return written;
}

function parentScope(fullName: string): string {
  return fullName.includes('.') ? fullName.slice(0, fullName.lastIndexOf('.')) : '';
}

/** Parses every file and resolves the field and method types among their declarations. */
export function readProtoTree(sources: readonly ProtoSource[]): ProtoTree {
  const into: Collected = { messages: [], enums: [], services: [] };
  const packages = new Map<string, string>();
  for (const source of sources) {
    let parsed: protobuf.IParserResult;
    try {
      parsed = protobuf.parse(source.text, new protobuf.Root(), { keepCase: true, alternateCommentMode: true });
    } catch (err) {
      throw new ProtoParseError(source.path, err instanceof Error ? err.message : String(err));
    }
    packages.set(source.path, parsed.package ?? '');
    collect(parsed.root, source.path, into);
  }
  const declared = new Set([...into.messages.map((m) => m.fullName), ...into.enums.map((e) => e.fullName)]);
  const messages = new Map<string, MessageDeclaration>();
  for (const m of into.messages) {
    const fields = m.fields.map(({ written, ...f }) => ({ ...f, type: resolveTypeName(written, m.fullName, declared) }));
    messages.set(m.fullName, { fullName: m.fullName, file: m.file, ...(m.upstream ? { upstream: m.upstream } : {}), fields });
  }
  const services = new Map<string, ServiceDeclaration>();
  for (const s of into.services) {
    const scope = parentScope(s.fullName);
    const methods = s.methods.map(({ requestWritten, responseWritten, ...m }) => ({
      ...m,
      requestType: resolveTypeName(requestWritten, scope, declared),
      responseType: resolveTypeName(responseWritten, scope, declared),
    }));
    services.set(s.fullName, { fullName: s.fullName, file: s.file, methods });
  }
  return { messages, enums: new Map(into.enums.map((e) => [e.fullName, e])), services, packages };
}
