// Jest's module runtime with V8's code cache kept per worker (test/codeCache.js): each test file
// still gets a fresh module registry, but a module another file of the worker compiled is not
// parsed and compiled again.
const Runtime = require('jest-runtime').default;
const { codeCache } = require('./codeCache');

/** The worker's compiled modules, shared by the runtimes of its test files. */
const compiled = new Map();

class CodeCachingRuntime extends Runtime {
  constructor(...args) {
    super(...args);
    // Jest 30 compiles modules in its ModuleExecutor; another version keeps its own compile.
    const executor = this.executor;
    if (!executor || typeof executor.compile !== 'function' || !Array.isArray(executor.injectedModuleParameters)) return;
    const cache = codeCache({
      compiled,
      params: () => executor.injectedModuleParameters,
      context: () => executor.environment.getVmContext(),
      dynamicImport: (...a) => executor.dynamicImport(...a),
      fallback: executor.compile.bind(executor),
    });
    executor.compile = cache.compile;
  }
}

module.exports = CodeCachingRuntime;
