#!/usr/bin/env bash
# Checks the package's Depends, installs the package into a clean Debian 12 root (debootstrap, no
# Swift toolchain) and runs the tools there: --version, apns-jwt check, the README's first push
# against the packaged emulator, the service's user and directories, systemd-analyze verify of the
# unit, the debug symbols package (each program's debug file where debuggers look for it by build
# id), then purge. In the same root, `make test-deps`' installer (Tests/Tools/apt_install_no_start.sh)
# installs at, whose start must be refused.
# Usage: packaging/deb/test-in-debian.sh PACKAGE.deb [DBGSYM.deb]   (make deb-test; needs root and the Debian
# mirror make deps uses; DEBIAN_MIRROR overrides it). Prints each step; exits non-zero on the first
# that fails.
# (A negated command, `! cmd`, never stops a script under `set -e`: each check that something is
# absent says so and exits itself.)
set -euo pipefail
package=$(realpath "${1:?usage: test-in-debian.sh PACKAGE.deb [DBGSYM.deb]}")
dbgsym=${2:+$(realpath "$2")}
mirror=${DEBIAN_MIRROR:-$(sed -n 's/^URIs: *\(http[^ ]*debian\)$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)}
mirror=${mirror:-http://deb.debian.org/debian}
root=$(mktemp -d /tmp/pushkit-deb-test-XXXXXX)
cleanup() {
	for mount in dev/pts dev proc; do umount "$root/$mount" 2>/dev/null || true; done
	rm -rf "$root"
}
trap cleanup EXIT
step() { printf '\n== %s\n' "$*"; }

step "the package's fields: Depends names each package once"
depends=$(dpkg-deb --field "$package" Depends)
echo "Depends: $depends"
twice=$(tr ',' '\n' <<<"$depends" | sed 's/^ *//; s/[ (].*//' | sort | uniq -d)
[ -z "$twice" ] || { echo "Depends names more than once: $twice"; exit 1; }

step "a clean Debian 12 root from $mirror"
debootstrap --variant=minbase bookworm "$root" "$mirror" > "$root.debootstrap.log" 2>&1 \
	|| { tail -n 20 "$root.debootstrap.log"; exit 1; }
rm -f "$root.debootstrap.log"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
cp /etc/resolv.conf "$root/etc/resolv.conf"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$@"; }
if in_root sh -c 'command -v swift || ls /usr/share/swift /opt/swift' >/dev/null 2>&1; then
	echo "the root has a Swift toolchain: not the test asked for"; exit 1
fi

step "apt install ./$(basename "$package") (and what the README's first push uses: openssl; systemd to verify the unit)"
cp "$package" "$root/tmp/"
in_root apt-get update -q > /dev/null
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
	"/tmp/$(basename "$package")" openssl systemd > "$root/tmp/install.log" 2>&1 \
	|| { tail -n 30 "$root/tmp/install.log"; exit 1; }
grep -E "pushkit-free:" "$root/tmp/install.log" || true

step "make test-deps' installer: at's service is refused its start, and the refusal is removed after"
here=$(cd "$(dirname "$0")" && pwd)
cp "$here/../../Tests/Tools/apt_install_no_start.sh" "$root/tmp/"
in_root bash /tmp/apt_install_no_start.sh at > "$root/tmp/at.log" 2>&1 || { tail -n 30 "$root/tmp/at.log"; exit 1; }
grep "policy-rc.d denied execution of start" "$root/tmp/at.log"
if in_root test -e /usr/sbin/policy-rc.d; then echo "the installer left its policy-rc.d behind"; exit 1; fi

step "the tools run (through their links to pushkit-free and pushkit-free-server)"
for tool in $(awk '!/^#/ && NF { print $1 }' "$here/../../tools.list") pushkit-free pushkit-free-server; do
	printf '%s %s\n' "$tool" "$(in_root "$tool" --version)"
done
# (Outputs are read whole, then searched: `grep -q` quits at the first match, and the writer's
# SIGPIPE would fail the pipeline under pipefail.)
help=$(in_root pushkit-free send-push --help)
grep -q "^USAGE: send-push" <<<"$help"
help=$(in_root pushkit-free-server apns-emulator --help)
grep -q "^USAGE: apns-emulator" <<<"$help"

step "the service's user, directories and unit"
in_root id pushkit
in_root stat -c '%n %a %U:%G' /etc/pushkit-free /var/lib/pushkit-free
in_root systemd-analyze verify /usr/lib/systemd/system/register-apns-serve.service

step "the README's first push, against the packaged emulator"
in_root bash -euo pipefail -c '
	cd /root
	openssl ecparam -name prime256v1 -genkey -noout | openssl pkcs8 -topk8 -nocrypt -out AuthKey_ABCDE12345.p8
	export APNS_KEY_PATH=$PWD/AuthKey_ABCDE12345.p8 APNS_KEY_ID=ABCDE12345 APNS_TEAM_ID=TEAM678901 APNS_TOPIC=com.example.app
	apns-emulator --quiet > emulator.log 2> emulator.err &
	emulator=$!
	for _ in $(seq 100); do grep -q "^listening on" emulator.log && break; sleep 0.1; done
	eval "$(apns-emulator --print-env)"
	apns-jwt check
	register-apns phone 740f4707bebcf74f9b7c25d48e3358945f6aa01da5ddb387462c7eaf61bb78ad
	send-push --title "Hello" --body "from the package"
	grep -q "\"status\":200" <<<"$(tail -n 1 emulator.log)"
	kill $emulator
'

if [ -n "$dbgsym" ]; then
	step "apt install ./$(basename "$dbgsym"): each program's debug information by its build id"
	cp "$dbgsym" "$root/tmp/"
	in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "/tmp/$(basename "$dbgsym")" > /dev/null 2>&1
	for program in pushkit-free pushkit-free-server; do
		id=$(readelf -n "$root/usr/bin/$program" | sed -n 's/^ *Build ID: *//p')
		debug="/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
		# (readelf warns that a debug file has no program interpreter: it holds none, by design)
		notes=$(readelf -n "$root$debug" 2>/dev/null)
		grep -q "Build ID: $id" <<<"$notes"
		sections=$(readelf -S "$root$debug" 2>/dev/null)
		grep -q '\.debug_info' <<<"$sections"
		sections=$(readelf -S "$root/usr/bin/$program")
		if grep -q '\.debug_info' <<<"$sections"; then echo "$program is installed with its debug information"; exit 1; fi
		echo "$program: $debug"
	done
	in_root env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q pushkit-free-dbgsym > /dev/null
fi

step "purge: what the package made goes, what the user made stays and is named"
in_root install -m 600 /dev/null /var/lib/pushkit-free/devices.json
in_root env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q pushkit-free 2>&1 | grep -E "pushkit-free:" || true
in_root test -e /var/lib/pushkit-free/devices.json
if in_root test -e /usr/bin/send-push; then echo "purge left /usr/bin/send-push"; exit 1; fi
echo
echo "make deb-test: the package installs, runs and purges on a clean Debian 12 root"
