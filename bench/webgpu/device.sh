#!/usr/bin/env bash
# The WebGPU benchmark (bench/webgpu/run.js) on a GPU machine that has no network, such as the
# `device` tool's machine, which gets a copy of the working tree (tracked files, untracked files
# git does not ignore) plus the ignored paths a call carries (64 MiB in all).
#
# 1. Here, with the repository's node_modules:   bash bench/webgpu/device.sh --pack
#    builds dist/ if needed, compiles the cases (run.js --emit: the device then needs no
#    TypeScript), and puts a slim `webgpu` package (index.js, package.json and this platform's
#    dawn.node, ~21 MB) and jax-js if bench/node_modules has it into bench/webgpu/node_modules
#    (ignored by git). It prints the paths to carry: dist and bench/webgpu/node_modules (~31 MB).
# 2. There:   bash bench/webgpu/device.sh [run.js arguments, e.g. 16,20,24 --no-jax]
#    checks what the run needs and says what is missing, then runs it; with $OUT set the table
#    is also written to $OUT/webgpu-bench.md.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
vendor="$here/node_modules"
cases="$vendor/.bench/cases.js"

if [ "${1:-}" = "--pack" ]; then
  set -e
  cd "$root"
  [ -f dist/runtime/webgpu/run.js ] || npm run build
  node bench/webgpu/run.js --emit="$cases"
  src="$(node -p "require('path').dirname(require.resolve('webgpu/package.json'))")"
  dawn="dist/$(node -p "process.platform + '-' + (process.platform === 'darwin' ? 'universal' : process.arch)")"
  rm -rf "$vendor/webgpu"
  mkdir -p "$vendor/webgpu/$dawn"
  cp "$src/index.js" "$src/package.json" "$vendor/webgpu/"
  cp "$src/$dawn/dawn.node" "$vendor/webgpu/$dawn/"
  if [ -f bench/node_modules/@jax-js/jax/package.json ]; then
    rm -rf "$vendor/@jax-js"
    mkdir -p "$vendor/@jax-js"
    cp -rL bench/node_modules/@jax-js/jax "$vendor/@jax-js/jax"
  else
    echo "jax-js is not in bench/node_modules (node bench/peers/install.js installs it): the device run will have no jax-js columns"
  fi
  echo "packed: $(du -sh "$vendor" | cut -f1) in bench/webgpu/node_modules, $(du -sh dist | cut -f1) in dist"
  echo 'carry: ["dist", "bench/webgpu/node_modules"]   command: bash bench/webgpu/device.sh'
  exit 0
fi

missing=0
say() { echo "device.sh: $*"; }
if ! command -v node >/dev/null; then
  say "missing: node (Node.js 20 or later) is not on PATH"
  exit 1
fi
say "node $(node --version) at $(command -v node)"
if [ ! -f "$root/dist/runtime/webgpu/run.js" ]; then
  say "missing: dist/ (npm run build, then carry \"dist\")"
  missing=1
fi
# The runtime (dist/) resolves 'webgpu' from the repository root: NODE_PATH adds the vendored copy.
export NODE_PATH="$vendor${NODE_PATH:+:$NODE_PATH}"
if ! (cd "$root/dist" 2>/dev/null && node -e "require.resolve('webgpu')" 2>/dev/null); then
  say "missing: the 'webgpu' package (Dawn): run 'bash bench/webgpu/device.sh --pack' where node_modules has it, and carry \"bench/webgpu/node_modules\""
  missing=1
fi
args=("$@")
if [ -f "$cases" ]; then
  args+=("--cases=$cases")
elif ! node -e "require.resolve('typescript')" 2>/dev/null; then
  say "missing: the compiled cases ($cases) and TypeScript to compile them: run --pack first"
  missing=1
fi
if [ ! -f "$vendor/@jax-js/jax/package.json" ] && [ ! -f "$root/bench/node_modules/@jax-js/jax/package.json" ]; then
  say "no jax-js (bench/webgpu/node_modules/@jax-js/jax): the jax-js columns stay empty"
fi
[ "$missing" = 0 ] || exit 1
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | sed 's/^/device.sh: GPU: /'
cd "$root"
if [ -n "${OUT:-}" ]; then
  node bench/webgpu/run.js "${args[@]}" 2>&1 | grep -v 'artificially reduced' | tee "$OUT/webgpu-bench.md"
  exit "${PIPESTATUS[0]}"
fi
exec node bench/webgpu/run.js "${args[@]}"
