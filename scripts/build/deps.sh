#!/bin/sh
# scripts/build/deps.sh PACKAGE...: apt-get install the Debian packages missing
# (detected with dpkg-query), printing what it installs.
set -eu
. "$(dirname "$0")/../lib.sh"
start=$(now)
missing=""
for p in "$@"; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$st" = installed ] || missing="$missing $p"
done
if [ -z "$missing" ]; then
	stage "deps" "ok (all $# packages installed)" "$start"
	exit 0
fi
command -v apt-get >/dev/null 2>&1 || die "deps: apt-get not found; install by hand:$missing"
[ "$(id -u)" = 0 ] || die "deps: must be root to install missing packages:$missing"
echo "deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
log="${TMPDIR:-/tmp}/cow-policy-apt.$$.log"
# shellcheck disable=SC2086
if ! { apt-get update && apt-get install -y --no-install-recommends $missing; } >"$log" 2>&1; then
	tail -n 20 "$log" >&2
	stage "deps" "FAILED (apt-get; log: $log)" "$start"
	exit 1
fi
rm -f "$log"
stage "deps" "ok (installed:$missing)" "$start"
