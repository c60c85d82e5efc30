#!/usr/bin/env bash
# Runs before `npm test`: the tests need Java 17+ (DynamoDB Local), bubblewrap (the script sandbox), Chromium (the web
# console's browser tests), moto_server, python3 and git. Installs Java, bubblewrap and Chromium from Debian's packages
# when missing and we may; otherwise says what is missing.
set -euo pipefail

java_major() { java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n1; }

if ! command -v java >/dev/null 2>&1 || [ "$(java_major)" -lt 17 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "Java 17+ not found: installing openjdk-17-jre-headless for DynamoDB Local"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless >/dev/null
  else
    echo "DynamoDB Local needs Java 17 or newer: install it (Debian/Ubuntu: apt-get install -y openjdk-17-jre-headless)" >&2
    exit 1
  fi
fi

if ! command -v bwrap >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "bubblewrap not found: installing it for the local script sandbox"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null
  else
    echo "local scripts run under bubblewrap: install it (Debian/Ubuntu: apt-get install -y bubblewrap)" >&2
    exit 1
  fi
fi

if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "Chromium not found: installing it for the web console's browser tests"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "the web console's browser tests drive /usr/bin/chromium: install it (Debian/Ubuntu: apt-get install -y chromium)" >&2
    exit 1
  fi
fi

for tool in moto_server python3 git prlimit; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "the tests need $tool on PATH (moto_server: pip install 'moto[server]')" >&2
    exit 1
  fi
done
