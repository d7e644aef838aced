#!/bin/sh
# Certificates for temporal-compose.tls.yml (docs/cluster.md#temporal-composeyml-with-tls), made with openssl:
#   scripts/temporal-certs.sh [DIR] [HOST …]
# writes into DIR (default ./certs): ca.crt/ca.key (the CA), server.crt/server.key (the Temporal frontend; it names
# `temporal`, localhost, 127.0.0.1 and every HOST the workers dial, and may also act as a client, as the server's
# own system worker and the UI's health checks connect with it) and client.crt/client.key (for phase5 on every
# machine). Certificates are valid for DAYS days (default 365). Keep ca.key off the worker machines.
# The certificates of an earlier run in DIR are replaced.
set -eu
dir=${1:-certs}
[ $# -gt 0 ] && shift
days=${DAYS:-365}
san="DNS:temporal,DNS:localhost,IP:127.0.0.1"
for host in "$@"; do
  case $host in
    *[!0-9.]*) san="$san,DNS:$host" ;;
    *) san="$san,IP:$host" ;;
  esac
done
mkdir -p "$dir"
cd "$dir"
ec="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
# shellcheck disable=SC2086
openssl req -x509 $ec -keyout ca.key -out ca.crt -days "$days" -subj /CN=phase5-temporal-ca 2>/dev/null
leaf() { # name, extensions
  # shellcheck disable=SC2086
  openssl req -new $ec -keyout "$1.key" -out "$1.csr" -subj "/CN=$1" 2>/dev/null
  printf '%s\n' "$2" >"$1.ext"
  openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -out "$1.crt" -days "$days" -extfile "$1.ext" 2>/dev/null
  rm "$1.csr" "$1.ext"
}
leaf server "subjectAltName=$san
extendedKeyUsage=serverAuth,clientAuth
basicConstraints=CA:FALSE"
leaf client "extendedKeyUsage=clientAuth
basicConstraints=CA:FALSE"
# The Temporal images run as their own user, so the keys they mount stay readable (isolation is by mount); the
# CA's key is for this machine only.
chmod 644 server.key client.key
chmod 600 ca.key
echo "certificates in $dir: ca.crt, server.crt/.key ($san), client.crt/.key"
