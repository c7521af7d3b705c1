#!/bin/sh
# Makes sure a Chromium is on this machine for the browser tests (driven by puppeteer-core,
# which downloads no browser of its own). Installs Debian's `chromium` when it is missing
# and this runs as root (as CI does); otherwise says how to install it.
set -e
for program in chromium chromium-browser; do
  if command -v "$program" >/dev/null 2>&1; then exit 0; fi
done
if [ "$(id -u)" -ne 0 ]; then
  echo "Chromium is missing: install it, e.g. sudo apt-get install -y chromium" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends chromium
