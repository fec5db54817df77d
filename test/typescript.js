// `typescript` inside the tests: the worker's shared copy (test/environment.js).
module.exports = globalThis.__tsadTypeScript;
