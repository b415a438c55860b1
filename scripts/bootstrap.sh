#!/bin/sh
# Installs what a fresh Debian machine with Node 20 lacks: the Debian packages the tools and
# tests use, pnpm, and the workspace's dependencies. Idempotent and quick when all is present.
set -eu
cd "$(dirname "$0")/.."

debian_packages="chromium bubblewrap ripgrep git postgresql libsecret-1-dev gnome-keyring dbus dbus-x11 libsecret-tools universal-ctags python3-pytest golang-go"
missing=""
if command -v dpkg-query >/dev/null 2>&1; then
  for package in $debian_packages; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
      missing="$missing $package"
    fi
  done
fi
if [ -n "$missing" ]; then
  echo "bootstrap: installing Debian packages:$missing"
  run_as_root=""
  if [ "$(id -u)" -ne 0 ]; then run_as_root="sudo"; fi
  $run_as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $run_as_root apt-get install -y -qq $missing >/dev/null
fi

pnpm_version="10.34.9"
if ! command -v pnpm >/dev/null 2>&1; then
  echo "bootstrap: installing pnpm $pnpm_version"
  npm install -g "pnpm@$pnpm_version" >/dev/null
fi

pnpm install --frozen-lockfile --prefer-offline --reporter=silent
