#!/usr/bin/env bash
# Installs Debian packages for the tests (`make test-deps`) without starting or enabling a service.
#
# Debian's maintainer scripts start a package's daemon as they install it and enable it for every
# boot: atd (at), tinyproxy, PostgreSQL's main cluster (postgresql), logrotate's timer (which
# tinyproxy brings). The tests need none of them running: they start what they use as processes
# of their own (`atd -f`, `tinyproxy -d` on a port of the test's, a throw-away PostgreSQL cluster)
# and stop it after. So:
# - while apt-get runs, /usr/sbin/policy-rc.d refuses every start (exit 101; invoke-rc.d and
#   deb-systemd-invoke ask it first) and is removed after. A machine that has a policy-rc.d of its
#   own (container images often do) keeps it, and it decides.
# - on a machine that systemd runs, the units the install enabled are disabled again, by name.
# What stays is the packages' files, PostgreSQL's default cluster in /var/lib/postgresql among
# them (made by its package, never started here). README.md lists the packages.
# Usage: Tests/Tools/apt_install_no_start.sh PACKAGE...
set -euo pipefail
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
	trap 'rm -f "$policy"' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap 'exit 129' HUP
	printf '#!/bin/sh\n# Written by make test-deps while it installs, and removed after: no service starts.\nexit 101\n' \
		> "$policy"
	chmod 0755 "$policy"
fi
enabled() { systemctl list-unit-files --state=enabled --no-legend | awk '{print $1}' | sort; }
systemd=""
[ -d /run/systemd/system ] && command -v systemctl > /dev/null && systemd=1
before=""
[ -z "$systemd" ] || before=$(enabled)
apt-get update
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@"
if [ -n "$systemd" ]; then
	added=$(comm -13 <(printf '%s\n' "$before") <(enabled) | xargs)
	if [ -n "$added" ]; then
		echo "make test-deps: disabling what the install enabled (the tests start their own): $added"
		# shellcheck disable=SC2086 # unit names, one word each
		systemctl disable $added
	fi
fi
