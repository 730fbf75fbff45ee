#!/usr/bin/env bash
# Install the Debian packages plateau needs to build, test and draw figures.
# Only missing packages are installed; uses sudo when not root.
set -euo pipefail
# gnuplot draws figures; Open MPI spreads search/sweep over machines (optional
# at build time, tested in CI); chromium renders the study report in a test.
pkgs=(build-essential cmake pkg-config libyajl-dev zlib1g-dev gnuplot-nox "$@")
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "installing: ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
