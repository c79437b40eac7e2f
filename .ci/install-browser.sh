#!/bin/sh
# Install a headless browser for the web page's end-to-end test (tests/serving/test_page_in_browser.py):
# Debian's chromium and chromium-driver; Selenium (a dev dependency) is pointed at /usr/bin/chromedriver.
# Idempotent and quiet: does nothing when both are there; apt output is shown only if something fails.
# Needs apt-get and root (or sudo); without them the test is skipped and says why.
set -eu

if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-browser.sh: apt-get not found; install chromium and chromedriver" >&2
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
        chromium chromium-driver; } >"$LOG" 2>&1; then
    cat "$LOG" >&2
    echo "install-browser.sh: apt-get failed" >&2
    exit 1
fi
chromium --version >/dev/null
