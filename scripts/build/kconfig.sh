#!/bin/sh
# scripts/build/kconfig.sh VARIANT TREE OBJ PENDING FRAGMENT...
# tinyconfig + merge_config.sh -m FRAGMENTs + olddefconfig, then validate
# (as tools/testing/kunit/kunit.py does): every option the fragments ask for
# must hold in the final .config. Options listed in PENDING only warn.
# Reconfigures only when the fragments or the tree's Kconfig files changed.
# KCONFIG_BASE (environment): tinyconfig (the default), or a configuration
# file, xz-compressed or not (make bench-distro: Debian's own), whose
# modules (=m) are turned off before the fragments are merged onto it.
# SEED_OBJ (environment): an object dir of the same tree, built (its
# kernel.id exists); a fresh OBJ starts as a copy of it, so that the build
# after this reconfiguration recompiles only what the changed options
# reach (kbuild's include/config/ dependencies), not the whole kernel.
set -eu
. "$(dirname "$0")/../lib.sh"
variant=$1 tree=$2 obj=$3 pending=$4
shift 4
start=$(now)
base=${KCONFIG_BASE:-tinyconfig}
if [ "$base" != tinyconfig ] && [ ! -f "$base" ]; then
	stage "config $variant" "FAILED (KCONFIG_BASE: no file '$base')" "$start"
	exit 1
fi
if [ -n "${SEED_OBJ:-}" ] && [ ! -e "$obj/.config" ] && [ -f "$SEED_OBJ/kernel.id" ] &&
	[ "$(readlink "$SEED_OBJ/source")" = "$(cd "$tree" && pwd)" ]; then
	rm -rf "$obj.seed"
	cp -a "$SEED_OBJ" "$obj.seed"
	rm -rf "$obj.seed/modinst" "$obj.seed/kernel.id" "$obj.seed/.kernel.ran" \
		"$obj.seed/.cowtest-config.stamp" "$obj.seed/build.log" "$obj.seed/config.log"
	# objtool's build (tools/build) records absolute object paths: rename
	# them, or it relinks objtool and every object that objtool checks
	# follows.
	find "$obj.seed/tools" -name '*.cmd' -exec grep -l -F "$SEED_OBJ/" {} + 2>/dev/null |
		while read -r f; do sed -i "s|$SEED_OBJ/|$obj/|g" "$f"; done
	rm -rf "$obj" && mv "$obj.seed" "$obj"
	echo "config $variant: object dir seeded from $SEED_OBJ"
fi
mkdir -p "$obj"
key=$({
	echo "$base"
	[ "$base" = tinyconfig ] || hash_files "$base"
	hash_files "$@" "$pending"
	git -C "$tree" rev-parse HEAD
	git -C "$tree" diff HEAD -- '*Kconfig*'
} | sha256sum | cut -d' ' -f1)
stampf="$obj/.cowtest-config.stamp"
if [ -f "$obj/.config" ] && [ "$(cat "$stampf" 2>/dev/null)" = "$key" ]; then
	stage "config $variant" "ok (unchanged)" "$start"
	exit 0
fi
rm -f "$stampf"
log="$obj/config.log"
# The configuration is composed in a scratch object dir and only its
# result lands in OBJ's .config, followed by one olddefconfig there: kbuild
# then marks changed only the options whose final value changed (its
# include/config/ files), not every option that tinyconfig and the merge
# passed through, so a reconfigured or seeded OBJ recompiles only what
# those options reach.
scratch="$obj.kconfig"
from_base() {
	if [ "$base" = tinyconfig ]; then
		make -C "$tree" O="$scratch" tinyconfig
		return
	fi
	case $base in
	*.xz) xz -dc "$base" ;;
	*) cat "$base" ;;
	esac | sed 's/^\(CONFIG_[A-Za-z0-9_]*\)=m$/# \1 is not set/' >"$scratch/.config.base" &&
		mv "$scratch/.config.base" "$scratch/.config" &&
		echo "config $variant: from $base, modules off ($(grep -c '=y$' "$scratch/.config") options built in)"
}
rm -rf "$scratch" && mkdir -p "$scratch"
trap 'rm -rf "$scratch"' EXIT
if ! {
	from_base &&
		"$tree/scripts/kconfig/merge_config.sh" -m -O "$scratch" "$scratch/.config" "$@" &&
		make -C "$tree" O="$scratch" olddefconfig &&
		{ cmp -s "$scratch/.config" "$obj/.config" || cp "$scratch/.config" "$obj/.config"; } &&
		make -C "$tree" O="$obj" olddefconfig
} >"$log" 2>&1; then
	tail -n 20 "$log" >&2
	stage "config $variant" "FAILED (log: $log)" "$start"
	exit 1
fi

# Validate. Requested options: the fragments in order, later ones win.
# "=n" and "is not set" both mean "must not be set" (absent is fine).
bad=$(awk -v pendingfile="$pending" '
	function want_line(line,   n, k) {
		if (line ~ /^CONFIG_[A-Za-z0-9_]+=/) {
			n = index(line, "="); k = substr(line, 1, n - 1)
			val = substr(line, n + 1); if (val == "n") val = "is not set"
			return k
		}
		if (line ~ /^# CONFIG_[A-Za-z0-9_]+ is not set$/) {
			split(line, parts, " "); val = "is not set"; return parts[2]
		}
		return ""
	}
	BEGIN {
		while ((getline l < pendingfile) > 0) {
			sub(/#.*/, "", l); gsub(/[ \t]/, "", l)
			if (l != "") pending[l] = 1
		}
	}
	FILENAME != dotconfig { k = want_line($0); if (k != "") { if (!(k in want)) order[++n] = k; want[k] = val }; next }
	{ k = want_line($0); if (k != "") have[k] = val }
	END {
		for (i = 1; i <= n; i++) {
			k = order[i]; w = want[k]
			h = (k in have) ? have[k] : "is not set"
			if (w == h) {
				if ((k in pending) && (k in have)) print "NOTE " k
				continue
			}
			if (k in pending && !(k in have)) { print "PENDING " k; continue }
			print "DROPPED " k " (asked " (w == "is not set" ? "not set" : w) ", got " (k in have ? (h == "is not set" ? "not set" : h) : "absent") ")"
		}
	}' dotconfig="$obj/.config" "$@" "$obj/.config")

printf '%s\n' "$bad" | sed -n 's/^PENDING \(.*\)/*** PENDING (not in this tree): \1 ***/p' >&2
printf '%s\n' "$bad" | sed -n 's/^NOTE \(.*\)/NOTE: \1 is listed in configs\/pending.txt but now holds; remove it from pending.txt/p'
dropped=$(printf '%s\n' "$bad" | sed -n 's/^DROPPED //p')
if [ -n "$dropped" ]; then
	echo "config $variant: options asked for by the fragments are not in the final .config" >&2
	echo "(probably unmet dependencies; see 'make O=$obj menuconfig'):" >&2
	printf '%s\n' "$dropped" | sed 's/^/    /' >&2
	stage "config $variant" "FAILED ($(printf '%s\n' "$dropped" | wc -l) dropped options)" "$start"
	exit 1
fi
echo "$key" >"$stampf"
# The fragments by their names under configs/ (lean.config 6.12/lean.config
# cow.config), so that a line's own fragment is told from the shared one.
stage "config $variant" "ok ($([ "$base" = tinyconfig ] || echo "${base##*/}, modules off, ")$(printf '%s\n' "$@" | sed -e 's|^.*configs/||' -e t -e 's|^.*/||' | tr '\n' ' ')validated)" "$start"
