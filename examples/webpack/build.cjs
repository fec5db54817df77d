// node build.cjs: webpack's Node API, for a project without webpack-cli.
const webpack = require('webpack');

webpack(require('./webpack.config.cjs'), (err, stats) => {
  if (err || stats.hasErrors()) {
    console.error(err ? err.message : stats.toString({ all: false, errors: true }));
    process.exitCode = 1;
  }
});
