#!/bin/sh
# Install a headless browser for the web page's end-to-end test (tests/serving/test_page_in_browser.py):
# Debian's chromium and chromium-driver; Selenium (a dev dependency) is pointed at /usr/bin/chromedriver.
# Idempotent and quiet: does nothing when both are there; apt output is shown only if something fails.
# Needs apt-get and root (or sudo); without them the test is skipped and says why.
set -eu

if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
    exit 0
fi
sh "$(dirname "$0")/apt-install.sh" install-browser.sh chromium chromium-driver
chromium --version >/dev/null
