// The stages `tsad inspect --stage` accepts; here so that `--help` needs no TypeScript compiler.

export const STAGES = ['linear-a', 'jvp', 'linearize', 'transpose', 'grad', 'emit', 'wgsl'] as const;
export type Stage = (typeof STAGES)[number];
