#!/usr/bin/env bash
# The system programs the test suites use besides Node: redis-server (real Redis for the rate-limit
# tests), openssl (a throwaway certificate for the Blob-mode browser tests), strace (the durability
# test reads the inbox's system calls) and Chromium (browser tests). Runs before `npm test` and in CI: installs what is missing with apt-get where it can (root
# on Debian or Ubuntu), and otherwise says what to install. Never skips a suite.
set -euo pipefail

missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
command -v strace >/dev/null 2>&1 || missing+=(strace)
# Debian's Chromium is preferred; Playwright's own browser (npx playwright install chromium) also works.
if [ ! -x /usr/bin/chromium ] && [ ! -x /usr/bin/chromium-browser ] &&
  ! ls "${PLAYWRIGHT_BROWSERS_PATH:-$HOME/.cache/ms-playwright}"/chromium-* >/dev/null 2>&1; then
  missing+=(chromium)
fi

[ "${#missing[@]}" -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing the system packages the tests need: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  exit 0
fi

echo "The tests need these system packages, which are not installed: ${missing[*]}" >&2
echo "Install them (e.g. sudo apt-get install ${missing[*]}), then run npm test again." >&2
exit 1
