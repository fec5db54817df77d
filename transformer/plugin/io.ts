// What the commands share with the command line: where they write, and the error that says the
// inputs are at fault.

export interface Io {
  out(s: string): void;
  err(s: string): void;
}

/** The inputs are at fault (exit 1); the message alone says what to do. */
export class InputError extends Error {}
