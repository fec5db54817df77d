// Instance methods: `grad(s.energy)` differentiates energy with `this` bound to `s`, whose fields
// (numbers, arrays, records) are constants read when the derivative runs. A call through a
// base-class type whose object's class overrides the method never runs the base's body silently:
// the derivative throws a TypeError naming the method.
import { load, partial, expectClose, expectTypeError } from './harness';

const source = `import { grad, valueAndGrad, jvp, vjp, differentiable } from 'tsad';

export class Spring {
  k = 2;
  rest: number[] = [1, 1];
  friction = { linear: 0.1 };
  constructor(public mass: number) {}

  @differentiable
  energy(x: number[]): number {
    let e = 0;
    for (let i = 0; i < x.length; i++) e += 0.5 * this.k * (x[i] - this.rest[i]) ** 2;
    return e / this.mass + this.friction.linear * x[0];
  }

  @differentiable
  doubled(x: number[]): number {
    return 2 * this.energy(x) + this.k;
  }
}

export class Base {
  scale = 1;
  @differentiable
  energy(x: number): number { return this.scale * x * x; }
  @differentiable
  total(x: number): number { return this.energy(x) + x; }
}

export class Derived extends Base {
  @differentiable
  energy(x: number): number { return this.scale * x * x * x; }
}

export class Plain extends Base {
  energy(x: number): number { return Math.sin(x); }
}

export class Inherits extends Base {}

export class Shape {
  @differentiable
  area(r: number): number { return r * r; }
}
export class Circle extends Shape {
  area(r: number): number { return Math.PI * r * r; }
}
export const areaVia = (sh: Shape, r: number) => grad(sh.area)(r);

export const s = new Spring(2);
export const dS = grad(s.energy);
export const gradOf = (sp: Spring, x: number[]) => grad(sp.energy)(x);
export const vgDoubled = (sp: Spring, x: number[]) => valueAndGrad(sp.doubled)(x);
export const jv = (sp: Spring, x: number[], dx: number[]) => jvp(sp.energy, [x], [dx]);
export const pb = (sp: Spring, x: number[]) => vjp(sp.energy, x)[1](1);
export const viaBase = (m: Base, x: number) => grad(m.energy)(x);
export const totalViaBase = (m: Base, x: number) => grad(m.total)(x);
export const viaDerived = (m: Derived, x: number) => grad(m.energy)(x);
`;

const { exports: m, result } = load(source);

const fdOf = (f: (x: number[]) => number, x: number[]) => x.map((_, k) => partial(f, [x], 0, k)[0]);

test('compiles without diagnostics', () => {
  expect(result.diagnostics.map((d) => d.messageText)).toEqual([]);
});

test('fields of this (a number, an array, a record) are read when the derivative runs', () => {
  const x = [0.3, 2];
  const energy = (v: number[]) => m.s.energy(v);
  expectClose(m.dS(x), fdOf(energy, x));
  m.s.k = 5;
  m.s.rest[1] = -1;
  m.s.friction.linear = 3;
  m.s.mass = 0.5;
  expectClose(m.dS(x), fdOf(energy, x));
});

test('another object: its own fields', () => {
  const other = new m.Spring(3);
  other.k = 7;
  other.rest = [0, 4];
  const x = [1, -1];
  expectClose(
    m.gradOf(other, x),
    fdOf((v) => other.energy(v), x),
  );
});

test('a method calling another through this, by valueAndGrad, jvp and vjp', () => {
  const sp = new m.Spring(1.5);
  sp.k = 3;
  const x = [0.2, 0.9];
  const [v, g] = m.vgDoubled(sp, x);
  expect(v).toBe(sp.doubled(x));
  expectClose(
    g,
    fdOf((u) => sp.doubled(u), x),
  );
  const [y, t] = m.jv(sp, x, [1, 2]);
  expect(y).toBe(sp.energy(x));
  const ge = fdOf((u) => sp.energy(u), x);
  expectClose([t], [ge[0] + 2 * ge[1]]);
  expectClose(m.pb(sp, x)[0], ge);
});

test('a base-class type whose object is of the same class, or of a subclass that does not override', () => {
  const b = new m.Base();
  b.scale = 3;
  expect(m.viaBase(b, 2)).toBeCloseTo(12, 12);
  const i = new m.Inherits();
  i.scale = 2;
  expect(m.viaBase(i, 2)).toBeCloseTo(8, 12);
  expect(m.totalViaBase(i, 2)).toBeCloseTo(9, 12);
});

test('the method of a subclass typed as the subclass', () => {
  const d = new m.Derived();
  d.scale = 2;
  expect(m.viaDerived(d, 2)).toBeCloseTo(24, 12);
});

test("a base-class type whose object's class overrides the method: a TypeError, never the base's body", () => {
  expectTypeError(
    () => m.viaBase(new m.Derived(), 2),
    "tsad: grad(m.energy) was compiled for Base.energy, but it is called on a Derived, whose energy is another method: give the receiver its own class's type (Derived), so that tsad compiles that method",
  );
  expectTypeError(
    () => m.viaBase(new m.Plain(), 2),
    "tsad: grad(m.energy) was compiled for Base.energy, but it is called on a Plain, whose energy is another method: give the receiver its own class's type (Plain), so that tsad compiles that method",
  );
  // A method that reads no field (the case that used to run the base's body silently).
  expect(m.areaVia(new m.Shape(), 3)).toBeCloseTo(6, 12);
  expectTypeError(
    () => m.areaVia(new m.Circle(), 3),
    "tsad: grad(sh.area) was compiled for Shape.area, but it is called on a Circle, whose area is another method: give the receiver its own class's type (Circle), so that tsad compiles that method",
  );
  // total is not overridden, but the energy it calls through this is.
  expectTypeError(
    () => m.totalViaBase(new m.Derived(), 2),
    "tsad: grad(m.total) was compiled for Base.total, but it is called on a Derived, whose energy is another method: give the receiver its own class's type (Derived), so that tsad compiles that method",
  );
});

describe('methods of classes of another module', () => {
  const { buildProgram } = require('./program');
  const build = buildProgram({
    'model.ts': `import { differentiable } from 'tsad';
export class Quadratic {
  a = 1;
  @differentiable
  value(x: number): number { return this.a * x * x; }
}
export class Cubic extends Quadratic {
  @differentiable
  value(x: number): number { return this.a * x * x * x; }
}
class Hidden {
  constructor(public k: number) {}
  @differentiable
  value(x: number): number { return this.k * Math.sin(x); }
}
export const makeHidden = (k: number) => new Hidden(k);
`,
    'main.ts': `import { grad } from 'tsad';
import { Quadratic, makeHidden } from './model';
export const d = (q: Quadratic, x: number) => grad(q.value)(x);
const h = makeHidden(2);
export const dh = grad(h.value);
export const setK = (k: number) => { h.k = k; };
`,
  });

  test('builds without diagnostics', () => {
    expect(build.diagnostics.map((d: any) => d.messageText)).toEqual([]);
  });

  test('an exported class and an unexported one, and an override seen from another module', () => {
    const model = build.require('model.ts');
    const main = build.require('main.ts');
    const q = new model.Quadratic();
    q.a = 3;
    expect(main.d(q, 2)).toBeCloseTo(12, 12);
    expectTypeError(
      () => main.d(new model.Cubic(), 2),
      "tsad: grad(q.value) was compiled for Quadratic.value, but it is called on a Cubic, whose value is another method: give the receiver its own class's type (Cubic), so that tsad compiles that method",
    );
    expect(main.dh(0.5)).toBeCloseTo(2 * Math.cos(0.5), 12);
    main.setK(5);
    expect(main.dh(0.5)).toBeCloseTo(5 * Math.cos(0.5), 12);
  });
});

describe('what is not supported yet is a diagnostic', () => {
  const { compile } = require('./harness');
  test.each([
    ['this in a function that is not a method', `/** @differentiable */\nexport function f(this: { k: number }, x: number): number { return this.k * x; }`, /TSAD1105|TSAD1102/],
    [
      'a method of another object called inside a marked function',
      `export class A {\n  k = 2;\n  @differentiable\n  e(x: number): number { return this.k * x; }\n}\nconst a = new A();\n/** @differentiable */\nexport function f(x: number): number { return a.e(x) * x; }\nexport const d = grad(f);`,
      /TSAD1102: 'a\.e' calls an instance method of another object/,
    ],
    [
      'a transform of a transform of a method',
      `export class A {\n  @differentiable\n  e(x: number): number { return x * x * x; }\n}\nconst a = new A();\nexport const d = grad(grad(a.e));`,
      /TSAD1102: grad of the method 'a\.e' inside a differentiable function or another transform is not supported yet/,
    ],
    ['a write into a field', `export class A {\n  k = 2;\n  @differentiable\n  e(x: number): number { this.k = x; return x; }\n}\nconst a = new A();\nexport const d = grad(a.e);`, /TSAD110\d/],
  ])('%s', (_what, body, message) => {
    const r = compile(`import { grad, differentiable } from 'tsad';\n${body}\n`, { throwOnError: false });
    expect(r.messages.join('\n')).toMatch(message);
  });
});
