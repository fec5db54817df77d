// The front end closes loop bodies and cond arms with the IR's own closer (ir/close.ts).
export { closeLoop } from '../ir/close';
