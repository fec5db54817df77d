// The front end's view of a lowered value, of a lowered function, and of the state a function
// reads when it runs (moduleState.ts), shared by its parts.
import type * as ts from 'typescript';
import type { Shape } from './shapes';

export interface Value {
  readonly name: string;
  readonly shape: Shape;
}

export interface LoweredFunction {
  readonly name: string;
  readonly decl: ts.SignatureDeclaration;
  /** `source`: the name the declaration gives it, where its IR name differs (ir/names.ts JS_GLOBALS): messages use it. */
  readonly params: readonly { readonly name: string; readonly shape: Shape; readonly source?: string }[];
  readonly result: Shape;
  /** Module-level variables and fields of `this` it reads when it runs (moduleState.ts): its def's trailing parameters. */
  readonly state: readonly ModuleState[];
  /** The instance methods it calls through `this`: the object's own must be these (compile.ts checks). */
  readonly methods: readonly ts.MethodDeclaration[];
}

export type ModuleDecl = (ts.VariableDeclaration | ts.BindingElement) & { readonly name: ts.Identifier };

/**
 * What a def reads when it runs (a trailing parameter of the def): a module-level variable, or a
 * field of the object an instance method is called on (`this.k`).
 */
export type StateSource =
  /** `decl`: a variable statement's declaration, or a name it destructures (`const { a, b } = config`). */
  | { readonly kind: 'module'; readonly symbol: ts.Symbol; readonly decl: ModuleDecl; readonly shape?: Shape }
  | { readonly kind: 'this'; readonly symbol: ts.Symbol; readonly field: string; readonly shape?: Shape };

export type ModuleState = StateSource & { readonly shape: Shape };
