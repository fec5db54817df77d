// `tsad/jest`, both ways ts-jest users can set it up:
// - `transform: { '^.+\\.tsx?$': ['tsad/jest', tsJestOptions] }`: a Jest transformer (ts-jest
//   with tsad added) whose cache key follows the whole import closure (see jestCache.ts);
// - `astTransformers: { before: ['tsad/jest'] }` in ts-jest's options: the adapter, whose
//   `version` stamps the project's TypeScript sources so that no cached file outlives an edit.
import { createTransformer, sourceTreeStamp } from './jestCache';

export { name, factory } from './jestAdapter';
export { createTransformer };

/** Read by ts-jest once per process into every cache key of the adapter form. */
export declare const version: string;
Object.defineProperty(exports, 'version', { enumerable: true, get: () => `2:${sourceTreeStamp(process.cwd())}` });

// Jest loads a transformer through the ES interop, so it sees `default` of a compiled module.
export default { createTransformer };
