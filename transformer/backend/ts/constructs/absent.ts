// absent in TypeScript (constructs/absent): the slot is left `undefined`, it is only ever dropped.
import type { ConstructTsRule } from '../types';
import { assign } from './stackEmit';

const absent: ConstructTsRule = (ops, _e, into) => [assign(ops, into[0], ops.factory.createIdentifier('undefined'))];

export const absentTs = { absent };
