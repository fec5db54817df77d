// The stages `tsad inspect --stage` and the playground show; in a file of their own so that
// `tsad --help` loads no compiler.

export const STAGES = ['linear-a', 'passes', 'jvp', 'linearize', 'transpose', 'grad', 'emit', 'wgsl'] as const;
export type Stage = (typeof STAGES)[number];
