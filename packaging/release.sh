#!/usr/bin/env bash
# A release of the committed tree: checks that it can be released, then (unless --check) puts in
# DIST/<version>/ the Debian packages `make deb` built, the source as pushkit-free-<version>.tar.gz
# (git archive of HEAD) and SHA256SUMS for all three (`sha256sum -c SHA256SUMS` verifies them).
# Usage: packaging/release.sh --check                 only the checks (make release runs them first)
#        packaging/release.sh DEB_LIST DIST           DEB_LIST: the file `make deb` wrote (.build/deb/last)
# The checks, each refusing with what to do:
#  - nothing uncommitted: no change to a tracked file and no untracked file outside .gitignore;
#  - the version is the one in Sources/PushKitFreeCore/System/PushKitFree.swift, and docs/openapi.yaml
#    says the same;
#  - CHANGELOG.md has a dated section for it (`## <version> – YYYY-MM-DD`) and nothing listed
#    under Unreleased (that would ship changes under a version that does not list them).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
refuse() { printf 'make release: %s\n' "$*" >&2; exit 1; }

version=$(sed -n 's/.*static let version = "\(.*\)".*/\1/p' Sources/PushKitFreeCore/System/PushKitFree.swift)
[ -n "$version" ] || refuse "no version in Sources/PushKitFreeCore/System/PushKitFree.swift"
changes=$(git status --porcelain --untracked-files=normal)
[ -z "$changes" ] || refuse "the tree has changes not committed (commit or stash them first):
$changes"
api=$(awk '/^  version:/ { gsub(/"/, "", $2); print $2; exit }' docs/openapi.yaml)
[ "$api" = "$version" ] || refuse "docs/openapi.yaml says version $api, the tools $version: make them the same"
released=$(sed -n "s/^## $(printf '%s' "$version" | sed 's/\./\\./g') – \([0-9]\{4\}-[0-9]\{2\}-[0-9]\{2\}\)\$/\1/p" CHANGELOG.md)
[ -n "$released" ] || refuse "CHANGELOG.md has no section '## $version – YYYY-MM-DD': name what this version changes"
unreleased=$(awk '/^## Unreleased/ { inside = 1; next } /^## / { inside = 0 } inside && NF' CHANGELOG.md)
[ -z "$unreleased" ] || refuse "CHANGELOG.md lists changes under Unreleased: move them into $version's section or a new version"
[ "${1:-}" = "--check" ] && { echo "make release: $version ($released) from $(git rev-parse --short HEAD) can be released"; exit 0; }

list=${1:?usage: release.sh --check | release.sh DEB_LIST DIST}
dist=${2:?usage: release.sh DEB_LIST DIST}/$version
rm -rf "$dist" && mkdir -p "$dist"
while read -r package; do
	case $(basename "$package") in
	*_"$version"_*.deb) cp "$package" "$dist/" ;;
	*) refuse "$package is not version $version: run make deb again" ;;
	esac
done < "$list"
git archive --format=tar --prefix="pushkit-free-$version/" HEAD | gzip -9n > "$dist/pushkit-free-$version.tar.gz"
(cd "$dist" && sha256sum -- *.deb *.tar.gz > SHA256SUMS)
echo "make release: pushkit-free $version ($released), commit $(git rev-parse HEAD), in $dist:"
cat "$dist/SHA256SUMS"
