#!/usr/bin/env bash
# Runs before `npm start` (prestart) and `npm test` (pretest, with --tests): what the local platform needs on this
# machine. Java 17+ (DynamoDB Local), bubblewrap (the script sandbox; not with SCRIPT_SANDBOX=none), git (template
# builds) and python3 (Python scripts); the tests add Chromium (the console's browser tests) and moto_server.
# Missing Debian packages are installed with apt-get when we run as root and have it; otherwise it stops with the one
# command that installs them, rather than letting the platform start unable to run scripts.
set -euo pipefail

for_tests=false
case "${1:-}" in
  '') ;;
  --tests) for_tests=true ;;
  *) echo "usage: bin/ensure-tools.sh [--tests]" >&2; exit 2 ;;
esac

java_major() { java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n1; }

# Debian 12 and Ubuntu 22.04 ship Java 17, Debian 13 only 21: the first of them apt knows.
java_package() {
  for package in openjdk-17-jre-headless openjdk-21-jre-headless; do
    if command -v apt-cache >/dev/null 2>&1 && [ -n "$(apt-cache policy "$package" 2>/dev/null | sed -n 's/ *Candidate: \([^(].*\)/\1/p')" ]; then
      echo "$package"; return
    fi
  done
  echo openjdk-17-jre-headless
}

missing=()
reasons=()
need() { missing+=("$1"); reasons+=("$2"); }

java_missing=false
if ! command -v java >/dev/null 2>&1 || [ "$(java_major)" -lt 17 ]; then java_missing=true; reasons+=('Java 17 or newer for DynamoDB Local'); fi
if [ "${SCRIPT_SANDBOX:-}" != none ] && ! command -v bwrap >/dev/null 2>&1; then need bubblewrap 'bubblewrap, the sandbox scripts run in (SCRIPT_SANDBOX=none runs them without it: trusted code only)'; fi
if ! command -v git >/dev/null 2>&1; then need git 'git for template builds'; fi
if ! command -v python3 >/dev/null 2>&1; then need python3 'python3 for Python scripts'; fi
if ! command -v prlimit >/dev/null 2>&1; then need util-linux "prlimit for the scripts' kernel limits"; fi
# The browser tests launch this exact path (test/support/browser.ts).
if $for_tests && [ ! -x /usr/bin/chromium ]; then need chromium "Chromium for the web console's browser tests"; fi

if $java_missing || [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    printf 'installing what is missing: %s\n' "${reasons[@]}"
    apt-get update -qq
    if $java_missing; then missing+=("$(java_package)"); fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    if $java_missing; then missing+=("$(java_package)"); fi
    printf 'missing: %s\n' "${reasons[@]}" >&2
    sudo=''
    [ "$(id -u)" = 0 ] || sudo='sudo '
    command -v apt-get >/dev/null 2>&1 || echo "this machine has no apt-get: install the same packages with its package manager" >&2
    echo "run this, then start again: ${sudo}apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

if $for_tests && ! command -v moto_server >/dev/null 2>&1; then
  echo "the tests need moto_server on PATH: run this, then test again: pip install 'moto[server]'" >&2
  exit 1
fi
