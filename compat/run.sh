#!/usr/bin/env bash
# The compatibility suite's one entry (CI's compat tier; `npm --prefix compat test` runs it too): installs compat/
# exactly as its lockfile pins, then runs lib/run.mjs, which runs every client against a Parlance server and writes
# docs/compatibility.md from the results.
# The install (~900 MB, CopilotKit's share most of it) is kept outside the checkout, in
# ~/.cache/parlance-compat/<lockfile sha256>/, and compat/node_modules links to it: a fresh clone (CI's) reuses it
# while the lockfile is unchanged. A compat/node_modules directory installed by hand for the same lockfile is used
# as it is. `run.sh --install` only installs (CI starts it in the background while the main suite runs).
set -euo pipefail
cd "$(dirname "$0")"
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
stamp=node_modules/.parlance-compat-lock
if [ -d node_modules ] && [ ! -L node_modules ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  : # installed here for this lockfile
else
  root="${XDG_CACHE_HOME:-$HOME/.cache}/parlance-compat"
  cache="$root/$want"
  if [ ! -f "$cache/.complete" ]; then
    start=$SECONDS
    rm -rf "$cache"
    mkdir -p "$cache"
    cp package.json package-lock.json "$cache/"
    (cd "$cache" && npm ci --no-audit --no-fund --loglevel=error)
    echo "$want" >"$cache/node_modules/.parlance-compat-lock"
    touch "$cache/.complete"
    echo "compat: npm ci took $((SECONDS - start)) s"
    # Installs for older lockfiles are dropped: one is kept.
    find "$root" -mindepth 1 -maxdepth 1 -type d ! -name "$want" -exec rm -rf {} +
  fi
  rm -rf node_modules
  ln -s "$cache/node_modules" node_modules
fi
if [ "${1:-}" = --install ]; then exit 0; fi
exec node lib/run.mjs "$@"
