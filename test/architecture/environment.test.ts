// The test environment (test/environment.js) builds each test file's global object as an ordinary
// one (Node's DONT_CONTEXTIFY context), where jest's is contextified: there every global read goes
// through an interceptor, ~250 ns each, and the programs the tests compile and run read `Math`
// in their inner loops.
import * as vm from 'vm';

const TsadEnvironment = require('../environment.js');

function environment() {
  const projectConfig = { testEnvironmentOptions: {}, globals: {}, fakeTimers: {} };
  return new TsadEnvironment({ projectConfig, globalConfig: {} }, { console, docblockPragmas: {}, testPath: __filename });
}

const ordinary = vm.constants?.DONT_CONTEXTIFY !== undefined;

test("the test file's context is its global object, an ordinary one, with jest's globals on it", async () => {
  const createContext = vm.createContext;
  const env = environment();
  expect(vm.createContext).toBe(createContext);
  const global = env.global;
  // A contextified context is the sandbox object, not the global object the code sees.
  expect(env.getVmContext() === global).toBe(ordinary);
  expect(vm.runInContext('globalThis', env.getVmContext())).toBe(global);
  expect(vm.runInContext('[typeof setTimeout, typeof process, typeof Buffer, Math.imul(3, 5), typeof __tsadTypeScript.createProgram]', env.getVmContext())).toEqual([
    'function',
    'object',
    'function',
    15,
    'function',
  ]);
  // A global a test sets is its own, and the next file's context starts without it.
  vm.runInContext('globalThis.leftOver = 1', env.getVmContext());
  expect(global.leftOver).toBe(1);
  expect(vm.runInContext('typeof leftOver', environment().getVmContext())).toBe('undefined');
  await env.teardown();
});
