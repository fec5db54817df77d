// `node --import tsad/register app.ts` or `node -r tsad/register app.ts`: loading this module
// installs tsad's TypeScript loader (loader.ts) in the process.
import { install } from './loader';

install();
