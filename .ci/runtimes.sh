#!/usr/bin/env bash
# Runtime checks in Node, Bun, Deno, workerd (miniflare) and Chromium: `npm run test:runtimes`.
# Installs from Debian what the runtimes need (Chromium; the two large sample images); Bun, Deno, workerd,
# wrangler and playwright-core come from the npm registry as devDependencies (npm ci, run by .ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."

export DEBIAN_FRONTEND=noninteractive
need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
[ -f /usr/share/backgrounds/gnome/adwaita-l.webp ] || need+=(gnome-backgrounds)
[ -f /usr/share/backgrounds/mate/abstract/Elephants_5640x3172.jpg ] || need+=(mate-backgrounds)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

[ -d node_modules ] || npm ci --no-audit --no-fund
npm run test:runtimes
