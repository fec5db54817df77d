// The evals whose derivatives tsad computes (grad/jacobian/... of @differentiable code). The
// array evals join this table as the array front end lands; drafts are in bench/drafts/.
import { table } from './evals';
import { hello } from './hello';

export const tsad = table({ hello });
