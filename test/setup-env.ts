// Every pass's output is re-checked in tests (TSAD_RECHECK=1), also in the builds the tests
// spawn; user builds leave it off. See the `recheck` option in transformer/ad/drivers.ts.
process.env.TSAD_RECHECK ??= '1';
