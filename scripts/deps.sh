#!/usr/bin/env bash
# Installs the Debian packages cordon builds, tests and runs with, if any is
# missing. Needs root (or sudo). Every dependency is a Debian package.
set -euo pipefail
packages=(
  g++ cmake ninja-build pkg-config git clang-format
  libseccomp-dev libboost-dev libfmt-dev libcxxopts-dev libsqlitecpp-dev libsqlite3-dev libgtest-dev
  bubblewrap iptables iproute2
  strace sqlite3 python3 tar make util-linux procps passwd time
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "cordon: missing packages: ${missing[*]}; run this as root (sudo)" >&2
    exit 1
  fi
  echo "installing: ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
