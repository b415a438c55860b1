#!/bin/sh
# Installs the extra Node.js lines the test suite runs on (22 and 24) into .node-lines/<major>/,
# from the npm registry's Node binary packages (node-<platform>-<arch>), never from the system.
# Prints one bin directory per line, for the supported lines in order: 20 is the machine's own
# Node. Idempotent: a line already installed at its pinned version is left alone.
set -eu
cd "$(dirname "$0")/.."

# Pinned versions: bump them deliberately, like any other dependency.
node_22="22.23.3"
node_24="24.21.0"

platform="$(node -p 'process.platform')-$(node -p 'process.arch')"
root=".node-lines"
mkdir -p "$root"

install_line() {
  major="$1"
  version="$2"
  target="$root/$major"
  if [ -x "$target/bin/node" ] && [ "$("$target/bin/node" --version)" = "v$version" ]; then
    return 0
  fi
  scratch="$(mktemp -d)"
  (cd "$scratch" && npm pack --silent "node-$platform@$version" >/dev/null 2>&1) || {
    echo "node-lines: could not fetch node-$platform@$version from the npm registry" >&2
    rm -rf "$scratch"
    return 1
  }
  tar -xzf "$scratch"/node-"$platform"-"$version".tgz -C "$scratch"
  rm -rf "$target"
  mkdir -p "$target/bin"
  mv "$scratch/package/bin/node" "$target/bin/node"
  rm -rf "$scratch"
  "$target/bin/node" --version >/dev/null
}

install_line 22 "$node_22" >&2
install_line 24 "$node_24" >&2

system_node="$(command -v node)"
echo "$(dirname "$system_node")"
echo "$(pwd)/$root/22/bin"
echo "$(pwd)/$root/24/bin"
