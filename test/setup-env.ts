// Every pass's output is re-checked in tests (TSAD_RECHECK=1), also in the builds the tests
// spawn; user builds leave it off. transformer/plugin/host.ts reads it and hands `recheck` to the
// drivers (transformer/ad/drivers.ts).
process.env.TSAD_RECHECK ??= '1';
