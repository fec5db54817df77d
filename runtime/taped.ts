// What the code taped mode generates calls at run time (internal: not for user code): the tape
// and first-order helpers, and second order (hvp, hessian) over them.
export * from './tape';
export * from './tapeSecondOrder';
export * from './derivatives';
export * from './tapeLinear';
export * from './tapedCalls';
export * from './tapeArrays';
