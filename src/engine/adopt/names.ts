/** Words TypeScript keeps for itself: never a variable name of generated code. */
const RESERVED = new Set(
  'break case catch class const continue debugger default delete do else enum export extends false finally for function if import in instanceof new null return super switch this throw true try typeof var void while with as implements interface let package private protected public static yield await any boolean number string symbol type of app scope id secret'.split(
    ' ',
  ),
);

/**
 * Construct ids for the stack's children, unique among them and valid as Terraform
 * resource names as they are (so a construct's id is its address): the object's name with
 * any other character as `-`, a letter first; a name taken by another construct gets the
 * kind, then a number.
 */
export class ConstructIds {
  private readonly taken = new Set<string>();

  take(name: string, kind: string): string {
    let base = name.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '') || kind;
    if (!/^[A-Za-z_]/.test(base)) base = `${kind}-${base}`;
    let id = base;
    if (this.taken.has(id)) id = `${base}-${kind}`;
    for (let n = 2; this.taken.has(id); n++) id = `${base}-${kind}-${n}`;
    this.taken.add(id);
    return id;
  }
}

function camel(text: string): string {
  const words = text.split(/[^A-Za-z0-9]+/).filter((w) => w !== '');
  return words.map((w, i) => (i === 0 ? w[0]?.toLowerCase() + w.slice(1) : w[0]?.toUpperCase() + w.slice(1))).join('');
}

/** Variable names for generated code: camelCase of a construct id, unique in their scope. */
export class VariableNames {
  private readonly taken = new Set<string>();

  constructor(reserved: Iterable<string> = []) {
    for (const r of reserved) this.taken.add(r);
  }

  /** A name for `from`; when taken, `owner` (e.g. the machine's variable) qualifies it before a number does. */
  take(from: string, owner?: string): string {
    let base = camel(from) || 'item';
    if (!/^[A-Za-z_$]/.test(base)) base = `_${base}`;
    if (owner !== undefined && (this.taken.has(base) || RESERVED.has(base))) base = `${owner}${base[0]?.toUpperCase()}${base.slice(1)}`;
    let name = RESERVED.has(base) ? `${base}_` : base;
    for (let n = 2; this.taken.has(name); n++) name = `${base}${n}`;
    this.taken.add(name);
    return name;
  }
}
