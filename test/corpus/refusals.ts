// The burn-down list of issue 19: every corpus program tsad refuses today, with exactly the
// diagnostic codes it gets and why. corpus.test.ts fails when a program builds or gets other
// codes: then update this table (and test/corpus/README.md) in the same change.

export interface Refusal {
  readonly codes: readonly string[];
  /** One line: which of the program's patterns the codes are about. */
  readonly reason: string;
}

export const REFUSALS: Record<string, Refusal> = {};
