#!/bin/sh
# Usage: apt-install.sh WHO PACKAGE...   Quiet `apt-get install` of Debian packages, shared by the
# .ci/install-*.sh scripts: apt output is shown only if something fails; needs apt-get and root
# (or sudo). WHO names the caller in error messages.
set -eu
WHO=$1
shift
if ! command -v apt-get >/dev/null 2>&1; then
    echo "$WHO: apt-get not found; install these Debian packages: $*" >&2
    exit 1
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
export DEBIAN_FRONTEND=noninteractive
if ! { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends "$@"; } >"$LOG" 2>&1; then
    cat "$LOG" >&2
    echo "$WHO: apt-get failed" >&2
    exit 1
fi
