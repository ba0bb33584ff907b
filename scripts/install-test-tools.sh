#!/usr/bin/env bash
# The Debian tools the tests use, installed when missing (npm runs this before `npm test`, as its
# `pretest` script): Redis, xmllint, nginx, Chromium, and Postfix, Dovecot and SpamAssassin for the
# newsletter's mail. The mail packages ship system services; the tests start their own instances with
# their own configuration, so the system ones are neither configured nor started: Postfix is told
# "No configuration" and service starts are refused (exit 101, Debian's policy-rc.d convention) for
# the time of the install. Nothing is done when every tool is present; installing needs root.
set -euo pipefail
PATH="$PATH:/usr/sbin" # Debian installs nginx and postfix in /usr/sbin, which is not on every user's PATH.

# command → Debian package; the mail packages are the ones with a system service.
tools=(xmllint:libxml2-utils redis-server:redis-server nginx:nginx chromium:chromium)
daemons=(postfix:postfix dovecot:dovecot-imapd spamassassin:spamassassin)

missing=()
missing_daemons=()
for pair in "${tools[@]}"; do command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}"); done
for pair in "${daemons[@]}"; do command -v "${pair%%:*}" >/dev/null 2>&1 || missing_daemons+=("${pair#*:}"); done
[ ${#missing[@]} -eq 0 ] && [ ${#missing_daemons[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "The tests need these Debian packages: ${missing[*]} ${missing_daemons[*]}" >&2
  echo "Install them as root (apt-get install ${missing[*]} ${missing_daemons[*]}), or run npm test as root." >&2
  exit 1
fi

echo "Installing ${missing[*]} ${missing_daemons[*]} from Debian..."
apt-get update -qq
if [ ${#missing[@]} -gt 0 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [ ${#missing_daemons[@]} -gt 0 ]; then
  echo "debconf debconf/frontend select Noninteractive" | debconf-set-selections
  echo "postfix postfix/main_mailer_type select No configuration" | debconf-set-selections
  policy=/usr/sbin/policy-rc.d
  placed=""
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && placed=1
  fi
  trap '[ -n "$placed" ] && rm -f "$policy"' EXIT
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing_daemons[@]}" >/dev/null
fi
