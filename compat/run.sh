#!/usr/bin/env bash
# The compatibility suite's one entry (CI's compat tier; `npm --prefix compat test` runs it too): installs compat/
# exactly as its lockfile pins (again only when the lockfile changed), then runs lib/run.mjs, which runs every
# client against a Parlance server and writes docs/compatibility.md from the results.
set -euo pipefail
cd "$(dirname "$0")"
stamp=node_modules/.parlance-compat-lock
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  start=$SECONDS
  npm ci --no-audit --no-fund --loglevel=error
  echo "$want" >"$stamp"
  echo "compat: npm ci took $((SECONDS - start)) s"
fi
exec node lib/run.mjs "$@"
