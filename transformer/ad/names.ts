// Names of derived functions, in one place so passes, drivers and emitters agree.
//   f.jvp   J(f): (x̄ ; ẋ̄) -> (ȳ ; ẏ̄)
//   f.fwd   the non-linear half of U(f.jvp): (x̄ ;) -> (ȳ, tape ;)
//   f.lin   the linear half of U(f.jvp): (tape ; ẋ̄) -> (; ẏ̄)
//   f.bwd   T(f.lin): (tape ; ȳ̄) -> (; x̄̄)
//   g.T     T(g) for any other linear function g
//   f.tape  the tape type of f
//   f.grad  E of the reverse pass composed with f.fwd: (x̄ ;) -> (gradients ;)
//   f.vg    value and (selected) gradients in one function, calls inlined: (x̄ ;) -> (y, gradients ;)
//   f.hvp   J(E(f.grad)) specialised to Hessian-vector products: (x̄, v̄ ;) -> (H·v̄ ;)
const strip = (name: string, suffix: string) => (name.endsWith(suffix) ? name.slice(0, -suffix.length) : name);

export const jvpName = (f: string) => `${f}.jvp`;
export const fwdName = (f: string) => `${strip(f, '.jvp')}.fwd`;
export const linName = (f: string) => `${strip(f, '.jvp')}.lin`;
export const tapeName = (f: string) => `${strip(f, '.jvp')}.tape`;
export const transposedName = (g: string) => (g.endsWith('.lin') ? `${strip(g, '.lin')}.bwd` : `${g}.T`);
export const gradName = (f: string) => `${f}.grad`;
export const valueAndGradName = (f: string) => `${f}.vg`;
export const hvpName = (f: string) => `${f}.hvp`;
export const erasedName = (f: string) => `${f}.E`;

/** Conventional tangent and cotangent names for a primal variable. */
export const dotName = (x: string) => `${x}_dot`;
export const barName = (x: string) => {
  // The cotangent of a tangent x_dot (or x_dot_2) is x_bar: the names follow the primal.
  const m = /^(.*?)_dot(?:_.*)?$/.exec(x);
  return `${m ? m[1] : x}_bar`;
};
