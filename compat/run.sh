#!/usr/bin/env bash
# The compatibility suite's one entry (CI's compat tier; `npm --prefix compat test` runs it too): installs compat/
# exactly as its lockfile pins, then runs lib/run.mjs, which runs every client against a Parlance server and writes
# docs/compatibility.md from the results.
# The install (~900 MB, CopilotKit's share most of it) is kept outside the checkout, in
# ~/.cache/parlance-compat/<lockfile sha256>/, and compat/node_modules links to it: a fresh clone (CI's) reuses it
# while the lockfile is unchanged; the installs of the two lockfiles used before it are kept too. A
# compat/node_modules directory installed by hand for the same lockfile is used as it is. `run.sh --install` only installs (CI starts it in the background while the main suite runs).
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
  fi
  touch "$cache/.complete" # when this install was last used
  # Installs for other lockfiles are dropped but the two used last (another checkout or branch may be using one
  # at this moment: dropping every other install broke a run in a second worktree mid-way).
  ls -1dt "$root"/*/.complete 2>/dev/null | tail -n +4 | while read -r stale; do rm -rf "$(dirname "$stale")"; done
  find "$root" -mindepth 1 -maxdepth 1 -type d ! -name "$want" ! -exec test -e '{}/.complete' \; -mmin +60 -exec rm -rf {} +
  rm -rf node_modules
  ln -s "$cache/node_modules" node_modules
fi
if [ "${1:-}" = --install ]; then exit 0; fi
exec node lib/run.mjs "$@"
