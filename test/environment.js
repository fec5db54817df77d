// The test environment: jest's node environment, plus one TypeScript per worker shared by the test
// files it runs. Jest loads every module afresh for each test file, and a fresh TypeScript spends
// seconds on its first program: compiling its own code, then parsing and binding the lib.*.d.ts
// files (lib.dom.d.ts alone is 1.7 MB). The shared copy and the files it parsed live as long as the
// worker; test/typescript.js hands it to the tests and to the transformer sources they load.
const { TestEnvironment } = require('jest-environment-node');
const fs = require('fs');
const path = require('path');
const vm = require('vm');

const runtimeDir = path.resolve(__dirname, '../runtime') + path.sep;

let shared;

/**
 * TypeScript whose compiler hosts parse a file of its lib/ folder or of tsad's runtime (which every
 * compiled test program imports) once per worker, and look each lib replacement package up once:
 * the same module, with createCompilerHost and createIncrementalCompilerHost wrapped, and
 * createProgram given such a host when called without one (TypeScript would make a plain one). A
 * parsed and bound file serves many programs, as in TypeScript's language service; a runtime file
 * is parsed again when its text changed (watch mode).
 */
function sharedTypeScript() {
  if (shared) return shared;
  const real = require('typescript');
  const libDir = path.dirname(require.resolve('typescript/lib/lib.d.ts')) + path.sep;
  const files = new Map();
  const libraries = new Map();
  /** The host, with getSourceFile and resolveLibrary going through the worker's caches. */
  const sharing = (host, setParentNodes) => {
    const getSourceFile = host.getSourceFile.bind(host);
    host.getSourceFile = (name, version, onError, create) => {
      const file = path.resolve(name);
      const lib = file.startsWith(libDir) && !file.slice(libDir.length).includes(path.sep);
      if (!lib && !file.startsWith(runtimeDir)) return getSourceFile(name, version, onError, create);
      const key = `${file}|${JSON.stringify(version)}|${setParentNodes === true}`;
      const hit = files.get(key);
      if (hit && (lib || hit.text === fs.readFileSync(file, 'utf8'))) return hit;
      const sf = getSourceFile(name, version, onError, create);
      if (sf) files.set(key, sf);
      return sf;
    };
    // Where a @typescript/lib-* package would replace a lib file (none is installed; the lookup is
    // made from the current directory for every program).
    host.resolveLibrary = (name, from, opts) => {
      const { moduleResolution, module, baseUrl, paths, typeRoots, preserveSymlinks, customConditions } = opts;
      const key = JSON.stringify([name, from, moduleResolution, module, baseUrl, paths, typeRoots, preserveSymlinks, customConditions]);
      if (!libraries.has(key)) libraries.set(key, real.resolveLibrary(name, from, opts, host));
      return libraries.get(key);
    };
    return host;
  };
  const createCompilerHost = (options, setParentNodes) => sharing(real.createCompilerHost(options, setParentNodes), setParentNodes);
  // A builder program needs every file's version (a hash of its text); a file the cache first got
  // for a plain host has none, so it is given one here, with the hash the incremental host uses.
  const createIncrementalCompilerHost = (options, system) => {
    const host = sharing(real.createIncrementalCompilerHost(options, system), undefined);
    const getSourceFile = host.getSourceFile;
    const hash = host.createHash ?? real.sys.createHash;
    host.getSourceFile = (...args) => {
      const sf = getSourceFile(...args);
      if (sf && sf.version === undefined && hash) sf.version = hash(sf.text);
      return sf;
    };
    return host;
  };
  const createProgram = (rootsOrOptions, options, host, ...rest) => {
    if (Array.isArray(rootsOrOptions)) return real.createProgram(rootsOrOptions, options, host ?? createCompilerHost(options), ...rest);
    const o = rootsOrOptions;
    return real.createProgram(o.host ? o : { ...o, host: createCompilerHost(o.options) });
  };
  // The module's exports are getters that cannot be redefined: the copy has the same getters.
  const ts = {};
  for (const [name, d] of Object.entries(Object.getOwnPropertyDescriptors(real))) Object.defineProperty(ts, name, { ...d, configurable: true });
  Object.defineProperty(ts, 'createCompilerHost', { enumerable: true, value: createCompilerHost });
  Object.defineProperty(ts, 'createProgram', { enumerable: true, value: createProgram });
  Object.defineProperty(ts, 'createIncrementalCompilerHost', { enumerable: true, value: createIncrementalCompilerHost });
  shared = ts;
  return ts;
}

/**
 * Jest makes each test file's global object a contextified one (vm.createContext of a proxy that
 * records what a test sets on it): every read of a global there (`Math`, `Map`, `Array`) goes
 * through an interceptor and the proxy, about 250 ns where an ordinary global read is inlined
 * (16M `Math.imul` calls: 5 s against 0.1 s). The compiled programs, the transformer and the tests'
 * references all run in that context. Node's DONT_CONTEXTIFY context is an ordinary global object:
 * the environment is built on one (jest installs its globals on it as before; what the proxy
 * recorded was only for deleting a test's own globals at teardown, when the context is dropped
 * anyway). A Node without it keeps jest's context.
 */
const ORDINARY = vm.constants?.DONT_CONTEXTIFY;

class TsadEnvironment extends TestEnvironment {
  constructor(config, context) {
    const createContext = vm.createContext;
    if (ORDINARY !== undefined) vm.createContext = () => createContext(ORDINARY);
    try {
      super(config, context);
    } finally {
      vm.createContext = createContext;
    }
    this.global.__tsadTypeScript = sharedTypeScript();
  }
}

module.exports = TsadEnvironment;
