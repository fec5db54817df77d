// A run-time value of the IR, as the interpreter and the constructs' interpretation rules hold it:
// a tuple, stack or array is a JavaScript array of its elements.
export type Value = number | boolean | string | Value[];
