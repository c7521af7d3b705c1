/**
 * Every error fleetform reports to a user is a FleetformError: a message, the path of
 * the offending field or resource (when there is one) and a hint saying how to fix it.
 * The command line prints these without a stack trace.
 */
export class FleetformError extends Error {
  readonly path: string | undefined;
  readonly hint: string | undefined;
  constructor(message: string, options: { path?: string; hint?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.path = options.path;
    this.hint = options.hint;
  }

  /** Names the resource where the hint says THIS_ADDRESS, so the command it gives runs as printed. */
  atAddress(address: string): this {
    if (this.hint?.includes(THIS_ADDRESS)) (this as { hint: string | undefined }).hint = withAddress(this.hint, address);
    return this;
  }

  /** One or two lines for a terminal: `path: message` and `  hint: ...`. */
  format(): string {
    const head = this.path ? `${this.path}: ${this.message}` : this.message;
    return this.hint ? `${head}\n  hint: ${this.hint}` : head;
  }
}

/**
 * What a kind's hint writes for the address of the resource it is about (`fleetform import
 * <this address> ID`): whoever reports the hint knows the address and puts it there.
 */
export const THIS_ADDRESS = '<this address>';

/** The text with the resource's address where it says THIS_ADDRESS. */
export function withAddress(text: string, address: string): string {
  return text.split(THIS_ADDRESS).join(address);
}

/** The message of anything thrown: an Error's message, else the value as text. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A user-supplied file, flag or value that cannot be used. */
export class InputError extends FleetformError {}
