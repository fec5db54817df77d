// `npx webpack` (with webpack-cli) or `node build.cjs`: bundles src/main.ts with tsad's
// derivatives into dist/main.cjs. tsad/webpack turns TypeScript into JavaScript itself.
const path = require('path');

module.exports = {
  mode: 'production',
  target: 'node',
  entry: './src/main.ts',
  output: { path: path.resolve(__dirname, 'dist'), filename: 'main.cjs' },
  resolve: { extensions: ['.ts', '.js'] },
  module: { rules: [{ test: /\.ts$/, use: 'tsad/webpack' }] },
  devtool: 'source-map',
};
