#!/usr/bin/env bash
# Runs before `npm test`: the tests need Java 17+ (DynamoDB Local), bubblewrap (the script sandbox), Chromium (the web
# console's browser tests), moto_server, python3 and git. Installs Java, bubblewrap and Chromium from Debian's packages
# when missing and we may; otherwise says what is missing.
set -euo pipefail

java_major() { java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n1; }

# apt_install <package> <what it is for>: installs as root with apt-get, or says how and fails.
apt_install() {
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "$1 missing: installing it for $2"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$1" >/dev/null
  else
    echo "$2 needs $1: install it (Debian/Ubuntu: apt-get install -y $1)" >&2
    exit 1
  fi
}

if ! command -v java >/dev/null 2>&1 || [ "$(java_major)" -lt 17 ]; then apt_install openjdk-17-jre-headless 'DynamoDB Local (Java 17 or newer)'; fi
if ! command -v bwrap >/dev/null 2>&1; then apt_install bubblewrap 'the local script sandbox'; fi
# The browser tests launch this exact path (test/support/browser.ts).
if [ ! -x /usr/bin/chromium ]; then apt_install chromium "the web console's browser tests"; fi

for tool in moto_server python3 git prlimit; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "the tests need $tool on PATH (moto_server: pip install 'moto[server]')" >&2
    exit 1
  fi
done
