// A backend turns call-site plans (plan/syntax.ts) into the code of one module. It remembers
// what the module already has: each IR def and each shared helper is emitted once, however many
// call sites need it. The TypeScript backend (typescript.ts) is the one there is today.
import type { CallSitePlan } from '../plan/syntax';

export interface Backend<Code, Site> {
  /**
   * The code one call site adds to the module, in order: the defs its entry points reach that
   * the module does not have yet, the helpers the module needs once, and the wrapper, named
   * `name`. `site` says where the call site is, for source maps.
   */
  callSite(plan: CallSitePlan, name: string, site: Site): Code[];
}
