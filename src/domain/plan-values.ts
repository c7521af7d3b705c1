/**
 * Values a plan holds that no JSON document can produce: a value known only once apply
 * has run, and the keyed digest a secret is stored and compared as. Being instances of
 * their own classes, never strings, no user value can be taken for either; the files
 * that keep them (state, saved plans) encode and decode them explicitly.
 */
export abstract class PlanValue {
  /** The text a reviewer reads in place of the value. */
  abstract describe(): string;
}

/**
 * A value only known once apply has run (e.g. the id of an object still to be created).
 * Text that refers to objects this apply creates may carry a stand-in: the text with
 * stand-ins for those objects, what a plan checks in its place.
 */
export class Unknown extends PlanValue {
  private constructor(
    readonly standIn?: string,
    /** Why there is no value where the plan runs (a secret's variable unset) and how to give it: what a reviewer reads. */
    readonly unset?: string,
  ) {
    super();
    Object.freeze(this);
  }
  static readonly value: Unknown = new Unknown();
  /** Text known after apply, checked at plan as `standIn`. */
  static withStandIn(standIn: string): Unknown {
    return new Unknown(standIn);
  }
  /** A value not given where the plan runs (a secret whose variable or file is missing): `why` says so and how to give it. */
  static notGiven(why: string): Unknown {
    return new Unknown(undefined, why);
  }
  describe(): string {
    return this.unset === undefined ? '(known after apply)' : `(not given: ${this.unset})`;
  }
  /** Written out only by an encoder that forgot it: a tagged object no JSON reader takes for data. */
  toJSON(): { readonly $fleetform: 'unknown' } {
    return { $fleetform: 'unknown' };
  }
}

/** The one unknown value. */
export const unknownValue: Unknown = Unknown.value;

export function isUnknown(value: unknown): value is Unknown {
  return value instanceof Unknown;
}

/** How a digest is written in a state file: its algorithm's label before the hex digest. */
const DIGEST_TEXT = /^sensitive:(hmac-sha256|sha256):([0-9a-f]+)$/;

/**
 * The keyed digest of a secret. One instance per digest, so equal digests are the same
 * object and compare equal by identity wherever values are compared.
 */
export class SensitiveDigest extends PlanValue {
  private static readonly interned = new Map<string, SensitiveDigest>();
  private constructor(
    /** `hmac-sha256` (keyed, current) or `sha256` (salted, written by earlier versions). */
    readonly algorithm: 'hmac-sha256' | 'sha256',
    readonly hex: string,
  ) {
    super();
    Object.freeze(this);
  }
  static of(algorithm: 'hmac-sha256' | 'sha256', hex: string): SensitiveDigest {
    const key = `${algorithm}:${hex}`;
    let found = SensitiveDigest.interned.get(key);
    if (!found) {
      found = new SensitiveDigest(algorithm, hex);
      SensitiveDigest.interned.set(key, found);
    }
    return found;
  }
  /** The digest a state file's text holds, or undefined when the text is not one. */
  static fromText(text: string): SensitiveDigest | undefined {
    const m = DIGEST_TEXT.exec(text);
    return m ? SensitiveDigest.of(m[1] as 'hmac-sha256' | 'sha256', m[2] as string) : undefined;
  }
  /** The digest as a state file holds it (read back by `fromText` at the paths recorded as secret). */
  text(): string {
    return `sensitive:${this.algorithm}:${this.hex}`;
  }
  describe(): string {
    return '(sensitive)';
  }
  toJSON(): string {
    return this.text();
  }
}

export function isSensitiveDigest(value: unknown): value is SensitiveDigest {
  return value instanceof SensitiveDigest;
}
