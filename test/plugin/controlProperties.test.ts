// Random small functions with if/else, for loops with break/continue, bounded while loops,
// early returns (also inside loops) and calls of local functions, compiled through the plugin: grad must equal the JVPs along
// each axis, and both must equal central finite differences wherever the function is smooth
// around the point. Several generated functions share one compiled file (the plugin is the slow
// part).
import fc from 'fast-check';
import { smoothExpression } from '../gen/source';
import { compile, loadOutput } from './harness';

// The local functions every generated function declares (HELPERS).
const smooth = (vars: readonly string[]) => smoothExpression(vars, [(e) => fc.tuple(fc.constantFrom('h', 'g'), e).map(([f, a]) => `${f}(${a})`)]);

const VARS = ['x', 'y', 'a', 'b'];
const comparison = fc.tuple(smooth(VARS), fc.constantFrom('<', '>'), smooth(VARS)).map(([a, op, b]) => `${a} ${op} ${b}`);

/** Statements nested at most `depth` deep; jumps only where a loop is around them. */
function statements(depth: number, inLoop: boolean): fc.Arbitrary<string[]> {
  return fc.array(statement(depth, inLoop), { minLength: 1, maxLength: 3 });
}

function statement(depth: number, inLoop: boolean): fc.Arbitrary<string> {
  const assign = fc.tuple(fc.constantFrom('a', 'b'), smooth(VARS)).map(([v, e]) => `${v} = ${e};`);
  const options: fc.Arbitrary<string>[] = [assign, assign, fc.tuple(comparison, smooth(VARS)).map(([c, e]) => `if (${c}) return ${e};`)];
  if (inLoop) options.push(fc.tuple(comparison, fc.constantFrom('break;', 'continue;')).map(([c, j]) => `if (${c}) ${j}`));
  if (depth > 0) {
    const inner = (loop: boolean) => statements(depth - 1, loop).map((ss) => ss.join('\n'));
    options.push(
      fc.tuple(comparison, inner(inLoop), fc.option(inner(inLoop))).map(([c, yes, no]) => `if (${c}) {\n${yes}\n}${no !== null ? ` else {\n${no}\n}` : ''}`),
      fc.tuple(fc.integer({ min: 0, max: 4 }), inner(true)).map(([n, body]) => `for (let i${depth} = 0; i${depth} < ${n}; i${depth}++) {\nb = b + 0.1 * i${depth};\n${body}\n}`),
      // A while loop whose trip count is bounded by a counter, whatever its condition.
      fc.tuple(fc.integer({ min: 1, max: 4 }), comparison, inner(true)).map(([n, c, body]) => `{\nlet w${depth} = 0;\nwhile (w${depth} < ${n} && ${c}) {\nw${depth}++;\n${body}\n}\n}`),
    );
  }
  return fc.oneof(...options);
}

/** Local functions closing over the parameter y, one with a loop and a break, inlined at each call. */
const HELPERS = `  const h = (t: number): number => Math.atan(t * y) + 0.5 * t;
  function g(t: number): number {
    let u = t;
    for (let k = 0; k < 2; k++) {
      if (u > 1) break;
      u = u * u + 0.1 * y;
    }
    return u;
  }`;

const fnBody = fc.tuple(statements(2, false), smooth(['a', 'b', 'x'])).map(([ss, r]) => `${HELPERS}\n  let a = x;\n  let b = y;\n${ss.join('\n')}\n  return ${r};`);

const PER_FILE = 6;
const H = 1e-6;

test('grad = JVPs = finite differences for random functions with loops, break, continue and returns (property)', () => {
  let checked = 0;
  let total = 0;
  fc.assert(
    fc.property(
      fc.array(fnBody, { minLength: PER_FILE, maxLength: PER_FILE }),
      fc.array(fc.tuple(fc.double({ min: -2, max: 2, noNaN: true }), fc.double({ min: -2, max: 2, noNaN: true })), { minLength: 3, maxLength: 3 }),
      (bodies, points) => {
        const src = [
          `import { grad, jvp } from 'tsad';`,
          ...bodies.map(
            (body, k) =>
              `/** @differentiable */\nexport function f${k}(x: number, y: number): number {\n${body}\n}\nexport const g${k} = grad(f${k}, { wrt: [0, 1] });\nexport const t${k} = (x: number, y: number, dx: number, dy: number) => jvp(f${k}, [x, y], [dx, dy]);`,
          ),
        ].join('\n');
        const compiled = compile(src, { throwOnError: false });
        if (compiled.diagnostics.length > 0 || compiled.typeErrors.length > 0) throw new Error(`${compiled.messages.join('\n')}\n${src}`);
        const e = loadOutput(compiled);
        bodies.forEach((body, k) => {
          const f = e[`f${k}`] as (x: number, y: number) => number;
          for (const [x, y] of points) {
            total++;
            const fx = f(x, y);
            const [gx, gy] = e[`g${k}`](x, y);
            const [vx, tx] = e[`t${k}`](x, y, 1, 0);
            const [, ty] = e[`t${k}`](x, y, 0, 1);
            if (!Object.is(vx, fx)) throw new Error(`jvp value ${vx} vs f ${fx} at (${x}, ${y})\n${body}`);
            const same = (a: number, b: number, rel: number) => (Number.isNaN(a) && Number.isNaN(b)) || Math.abs(a - b) <= rel * Math.max(1, Math.abs(b));
            if (!same(gx, tx, 1e-9) || !same(gy, ty, 1e-9)) throw new Error(`grad (${gx}, ${gy}) vs jvp (${tx}, ${ty}) at (${x}, ${y})\n${body}`);
            if (!Number.isFinite(fx) || Math.abs(fx) > 1e4) continue;
            // Finite differences only where f is smooth around the point: no branch boundary within
            // h (one-sided differences agree) and the same derivative at the neighbours.
            const shifted = [f(x + H, y), f(x - H, y), f(x, y + H), f(x, y - H)];
            const oneSided = (up: number, down: number) => Math.abs((up - fx) / H - (fx - down) / H) < 1e-3 * Math.max(1, Math.abs((up - down) / (2 * H)));
            const sameGrad = [
              [x + H, y],
              [x - H, y],
              [x, y + H],
              [x, y - H],
            ].every(([u, v]) => {
              const [ux, uy] = e[`g${k}`](u, v);
              return same(ux, gx, 1e-3) && same(uy, gy, 1e-3);
            });
            if (!(oneSided(shifted[0], shifted[1]) && oneSided(shifted[2], shifted[3]) && sameGrad)) continue;
            const dx = (shifted[0] - shifted[1]) / (2 * H);
            const dy = (shifted[2] - shifted[3]) / (2 * H);
            if (!same(gx, dx, 1e-4) || !same(gy, dy, 1e-4)) throw new Error(`grad (${gx}, ${gy}) vs differences (${dx}, ${dy}) at (${x}, ${y})\n${body}`);
            checked++;
          }
        });
      },
    ),
    { numRuns: 4 },
  );
  // The finite-difference comparison ran for most points (it is skipped only near a kink or jump).
  expect(checked).toBeGreaterThan(total / 2);
});
