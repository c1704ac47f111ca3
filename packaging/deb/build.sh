#!/usr/bin/env bash
# Builds pushkit-free_<version>_<arch>.deb from release binaries and generated manual pages, and
# pushkit-free-dbgsym_<version>_<arch>.deb with their debug information (found by build id).
# Usage: packaging/deb/build.sh BIN_DIR MAN_DIR OUT_DIR   (make deb runs it; see docs/internals.md)
# Prints the two packages' paths, the main one first.
# The version is the tools' own (Sources/PushKitFreeCore/System/PushKitFree.swift). Depends is
# computed by dpkg-shlibdeps from what the binaries link, plus what they load at run time: libcurl
# (send-push, register-apns channel, apns-jwt check --online) and the tz database; libpq5 and
# libsqlite3-0 are loaded only for a PostgreSQL registry and for imports: Suggests.
set -euo pipefail
BIN=${1:?BIN_DIR}
MAN=${2:?MAN_DIR}
OUT=${3:?OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
version=$(sed -n 's/.*static let version = "\(.*\)".*/\1/p' "$repo/Sources/PushKitFreeCore/System/PushKitFree.swift")
arch=$(dpkg --print-architecture)
name="pushkit-free_${version}_${arch}"
root="$OUT/$name"
# The tools, from tools.list: the light ones are links to pushkit-free, the program that is all of
# them, those that serve links to pushkit-free-server; `tools` are those with a manual page and
# completions of their own (register-apns-serve's are register-apns').
tools_of() { awk -v program="$1" '!/^#/ && NF && $2 == program { print $1 }' "$repo/tools.list"; }
tools=$(awk '!/^#/ && NF == 3 { print $1 }' "$repo/tools.list")
linked=$(tools_of pushkit-free)
server_linked=$(tools_of pushkit-free-server)
programs="pushkit-free pushkit-free-server"
maintainer="pushkit-free developers <pushkit-free@users.noreply.github.com>"
dbgsym="$OUT/pushkit-free-dbgsym_${version}_${arch}"
rm -rf "$root" "$dbgsym" && mkdir -p "$root/DEBIAN" "$dbgsym/DEBIAN"

# The programs, stripped (the Swift runtime is linked in; nothing of the toolchain is needed). Their
# debug information goes to the -dbgsym package, under /usr/lib/debug/.build-id/ where gdb, lldb and
# the Swift runtime's backtracer look for it by the program's build id.
install -d "$root/usr/bin"
build_ids=""
for program in $programs; do
	id=$(readelf -n "$BIN/$program" | sed -n 's/^ *Build ID: *//p')
	[ -n "$id" ] || { echo "build.sh: $program has no build id" >&2; exit 1; }
	build_ids="$build_ids $id"
	install -d "$dbgsym/usr/lib/debug/.build-id/${id:0:2}"
	objcopy --only-keep-debug --compress-debug-sections=zlib "$BIN/$program" \
		"$dbgsym/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
	chmod 0644 "$dbgsym/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
	strip --strip-unneeded -o "$root/usr/bin/$program" "$BIN/$program"
	chmod 0755 "$root/usr/bin/$program"
done
for tool in $linked; do ln -s pushkit-free "$root/usr/bin/$tool"; done
for tool in $server_linked; do ln -s pushkit-free-server "$root/usr/bin/$tool"; done

# Manual pages and completions, generated from the same definitions as --help.
install -d "$root/usr/share/man/man1" "$root/usr/share/bash-completion/completions" \
	"$root/usr/share/zsh/vendor-completions" "$root/usr/share/fish/vendor_completions.d"
for tool in $tools; do
	gzip -9n < "$MAN/$tool.1" > "$root/usr/share/man/man1/$tool.1.gz"
	# Completions are sourced, not run: no #! line.
	"$BIN/$tool" --generate-completion-script bash | sed '1{/^#!/d}' > "$root/usr/share/bash-completion/completions/$tool"
	"$BIN/$tool" --generate-completion-script zsh > "$root/usr/share/zsh/vendor-completions/_$tool"
	"$BIN/$tool" --generate-completion-script fish > "$root/usr/share/fish/vendor_completions.d/$tool.fish"
done
gzip -9n < "$repo/packaging/pushkit-free.1" > "$root/usr/share/man/man1/pushkit-free.1.gz"
ln -s pushkit-free.1.gz "$root/usr/share/man/man1/pushkit-free-server.1.gz"
# register-apns-serve is what `register-apns serve` runs: its page is register-apns's.
ln -s register-apns.1.gz "$root/usr/share/man/man1/register-apns-serve.1.gz"

# The service: the example unit with the package's paths, waiting for its config; its user and
# directories come from sysusers.d and tmpfiles.d.
install -d "$root/usr/lib/systemd/system" "$root/usr/lib/sysusers.d" "$root/usr/lib/tmpfiles.d"
sed -e 's|/usr/local/bin/register-apns|/usr/bin/register-apns|' \
	-e 's|^\[Unit\]$|[Unit]\n# Not started before the config is there (the package ships none: see the examples).\nConditionPathExists=/etc/pushkit-free/config.json|' \
	-e '/^# Install, as root, after/,/^#   systemctl daemon-reload/d' \
	"$repo/examples/systemd/register-apns-serve.service" > "$root/usr/lib/systemd/system/register-apns-serve.service"
install -m 0644 "$here/pushkit-free.sysusers" "$root/usr/lib/sysusers.d/pushkit-free.conf"
install -m 0644 "$here/pushkit-free.tmpfiles" "$root/usr/lib/tmpfiles.d/pushkit-free.conf"

# Documentation: the copyright notice, the changelog, an example config.
doc="$root/usr/share/doc/pushkit-free"
install -d "$doc/examples"
install -m 0644 "$here/copyright" "$doc/copyright"
gzip -9n < "$repo/CHANGELOG.md" > "$doc/CHANGELOG.md.gz"
# The package's own changelog, in Debian's format, dated by the version's CHANGELOG section.
released=$(sed -n "s/^## $version – \([0-9-]*\).*/\1/p" "$repo/CHANGELOG.md")
{
	printf 'pushkit-free (%s) unstable; urgency=medium\n\n' "$version"
	printf '  * Release %s: see /usr/share/doc/pushkit-free/CHANGELOG.md.gz.\n\n' "$version"
	printf ' -- %s  %s\n' "$maintainer" "$(date -u -R -d "${released:-1970-01-01} 00:00:00")"
} | gzip -9n > "$doc/changelog.gz"
install -m 0644 "$here/config.json" "$doc/examples/config.json"

# Maintainer scripts.
for script in postinst prerm postrm; do install -m 0755 "$here/$script" "$root/DEBIAN/$script"; done

# Depends: what the binaries link (dpkg-shlibdeps reads a debian/control of its own), and what they
# load at run time. pushkit-free-server links libcurl (FoundationNetworking, which the MCP SDK
# brings), so dpkg-shlibdeps names libcurl4 too, at the lower version its symbols need: that entry
# gives way to the one below, so that libcurl4 is named once, at the version sends need.
loaded="libcurl4 (>= 7.88), tzdata"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/debian"
printf 'Source: pushkit-free\n\nPackage: pushkit-free\nArchitecture: any\n' > "$scratch/debian/control"
shlibs=$(cd "$scratch" && dpkg-shlibdeps -O $(for program in $programs; do
	printf -- '-e%s ' "$root/usr/bin/$program"; done) 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
loaded_names=$(sed 's/ *([^)]*)//g; s/, */|/g' <<<"$loaded")
shlibs=$(tr ',' '\n' <<<"$shlibs" | sed 's/^ *//' | grep -Ev "^($loaded_names)( |\$)" | paste -sd, | sed 's/,/, /g')
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat > "$root/DEBIAN/control" <<CONTROL
Package: pushkit-free
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $size
Depends: $shlibs, $loaded
Suggests: libpq5, libsqlite3-0
Section: net
Priority: optional
Homepage: https://github.com/pushkit-free/pushkit-free
Description: send Apple push notifications from your own server
 Small command-line tools that send notifications to your own iOS app
 straight from a server: apns-jwt makes and caches the provider token,
 register-apns keeps the devices (and serves the endpoint apps register
 with), send-push delivers over one HTTP/2 connection and acts on every
 answer, ask-push asks a question on the phone and prints the answer,
 apns-emulator is a local APNs for tests and offline work, and
 pushkit-mcp offers notify, list_devices and questions to AI agents over MCP.
CONTROL
dpkg-deb --root-owner-group -Zxz --build "$root" "$OUT/$name.deb" >/dev/null

# The debug symbols, as Debian's automatic -dbgsym packages are made (its documentation is the main
# package's, by a link).
install -d "$dbgsym/usr/share/doc"
ln -s pushkit-free "$dbgsym/usr/share/doc/pushkit-free-dbgsym"
cat > "$dbgsym/DEBIAN/control" <<CONTROL
Package: pushkit-free-dbgsym
Source: pushkit-free
Version: $version
Auto-Built-Package: debug-symbols
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$dbgsym" | cut -f1)
Depends: pushkit-free (= $version)
Section: debug
Priority: optional
Description: debug symbols for pushkit-free
Build-Ids:$build_ids
CONTROL
dpkg-deb --root-owner-group -Zxz --build "$dbgsym" "$OUT/pushkit-free-dbgsym_${version}_${arch}.deb" >/dev/null
echo "$OUT/$name.deb"
echo "$OUT/pushkit-free-dbgsym_${version}_${arch}.deb"
