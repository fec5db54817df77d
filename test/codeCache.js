// V8's code cache for the modules jest compiles, kept per worker (test/runtime.js installs it).
// Jest gives every test file a fresh module registry, so each file compiles tsad's transformer
// (some 400 modules) and its helpers again: V8 parses each module and compiles each function it
// calls, the same code file after file. Here the first file to load a module in a worker compiles
// it; the next one takes a code cache of that compile, made after the first file ran (so it holds
// the functions that file compiled lazily too), and each later one reuses it. V8 checks that a
// cache matches its source and rejects it otherwise (then the module compiles as usual). Modules
// still run afresh in each file: only compiled code is shared, never a module's state.
const vm = require('vm');

/**
 * A compile function with the same contract as jest's ModuleExecutor.compile: the module's source
 * wrapped as a function of PARAMS, compiled for the context CONTEXT() returns (null once the test
 * file's environment is gone: then FALLBACK decides). FALLBACK also compiles what fails to
 * compile here (a syntax error), so that it is reported as jest reports it. COMPILED (filename →
 * the source last compiled, and its code cache or the script to make it from) is the worker's.
 */
function codeCache({ compiled, params, context, dynamicImport, fallback }) {
  return {
    compile(scriptSource, filename) {
      const ctx = context();
      if (ctx == null) return fallback(scriptSource, filename);
      const wrapped = `(function (${params().join(', ')}) {\n${scriptSource}\n})`;
      const prior = compiled.get(filename);
      const same = prior !== undefined && prior.wrapped === wrapped;
      if (same && prior.cache === undefined) {
        prior.cache = prior.script.createCachedData();
        prior.script = undefined;
      }
      let script;
      try {
        // The parameters on a line of their own, and that line not counted: the module's lines and
        // columns stay those its source map reads.
        script = new vm.Script(wrapped, {
          filename,
          lineOffset: -1,
          cachedData: same ? prior.cache : undefined,
          importModuleDynamically: (specifier, _script, attributes) => dynamicImport(specifier, filename, ctx, attributes),
        });
      } catch {
        return fallback(scriptSource, filename);
      }
      if (!same || script.cachedDataRejected) compiled.set(filename, { wrapped, script, cache: undefined });
      return script.runInContext(ctx);
    },
  };
}

module.exports = { codeCache };
