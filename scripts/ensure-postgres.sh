#!/bin/sh
# Makes sure PostgreSQL's server programs (initdb, pg_ctl) are on this machine: the tests
# start a throwaway server of their own. Installs Debian's packages when they are missing
# and this runs as root (as CI does); otherwise says how to install them.
set -e
for dir in /usr/lib/postgresql/*/bin; do
  if [ -x "$dir/initdb" ]; then exit 0; fi
done
if command -v initdb >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" -ne 0 ]; then
  echo "PostgreSQL's server programs (initdb, pg_ctl) are missing: install them, e.g. sudo apt-get install -y postgresql" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends postgresql
