#!/usr/bin/env bash
# release.sh: limen's release archives, one per platform, with SHA256SUMS.
#
#   scripts/release.sh [-o DIR] [REF]        (defaults: dist, HEAD)
#
# REF is a tag such as v0.4.0 (or any commit). It is built from a fresh
# clone of the committed tree, never from the work tree, so an archive
# holds exactly what the tag names, and the Go toolchain stamps the
# binaries' --version itself: the tag's version when REF is a tag, else a
# pseudo-version, and the commit either way (a git worktree's .git file
# gets no stamp, which the clone also avoids). Plain `go build -trimpath`
# with CGO off: no GoReleaser to fetch, and the same command on any
# machine with Go and git. Archives are reproducible with GNU tar.
#
# PLATFORMS="linux/amd64" builds fewer than the four released:
# linux/amd64, linux/arm64, darwin/amd64, darwin/arm64.
set -euo pipefail
out=dist
while getopts o: opt; do
	case $opt in
	o) out=$OPTARG ;;
	*) echo "usage: scripts/release.sh [-o DIR] [REF]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
ref=${1:-HEAD}
platforms=${PLATFORMS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64}

repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
if ! commit=$(git -C "$repo" rev-parse --verify --quiet "$ref^{commit}"); then
	echo "release.sh: $ref is not a tag or commit of $repo; give one such as v0.4.0" >&2
	exit 2
fi
if tag=$(git -C "$repo" describe --tags --exact-match "$commit" 2>/dev/null); then
	version=${tag#v}
else
	version=0.0.0-snapshot-$(git -C "$repo" rev-parse --short=12 "$commit")
	echo "release.sh: $ref is not tagged; building snapshot $version" >&2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone --quiet --shared --no-checkout "$repo" "$work/src"
git -C "$work/src" -c advice.detachedHead=false checkout --quiet "$commit"
epoch=$(git -C "$work/src" log -1 --format=%ct)

tarflags=()
if tar --version 2>/dev/null | grep -q 'GNU tar'; then
	tarflags=(--sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch")
fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
archives=()
for platform in $platforms; do
	goos=${platform%/*} goarch=${platform#*/}
	name=limen_${version}_${goos}_${goarch}
	stage=$work/stage/$name
	mkdir -p "$stage"
	echo "--- $name" >&2
	(cd "$work/src" && CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch GOFLAGS=-buildvcs=true \
		go build -trimpath -ldflags='-s -w -buildid=' -o "$stage/" ./cmd/limend ./cmd/limenctl ./cmd/limen-hook)
	cp "$work/src/README.md" "$work/src/LICENSE" "$stage/"
	tar "${tarflags[@]}" -C "$work/stage" -cf - "$name" | gzip -n -9 >"$out/$name.tar.gz"
	archives+=("$name.tar.gz")
done

if command -v sha256sum >/dev/null; then
	sum=(sha256sum)
else
	sum=(shasum -a 256) # macOS
fi
(cd "$out" && "${sum[@]}" "${archives[@]}" >SHA256SUMS)
cat "$out/SHA256SUMS"
echo "release.sh: ${#archives[@]} archives and SHA256SUMS in $out (commit $commit)" >&2
