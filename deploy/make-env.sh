#!/bin/sh
# `sh deploy/make-env.sh [file]`: writes .env (or <file>) from .env.example with every empty secret
# filled with a fresh random value. Refuses to overwrite: a new secret would lock the stack out of
# its own data (PostgreSQL and ClickHouse passwords are set once, on their first start).
set -eu
here=$(dirname "$0")
example="$here/../.env.example"
target=${1:-"$here/../.env"}
if [ -e "$target" ]; then
  echo "make-env: $target exists; remove it first if you really mean to start over" >&2
  exit 1
fi
command -v openssl >/dev/null 2>&1 || { echo "make-env: needs openssl" >&2; exit 1; }
umask 077
while IFS= read -r line || [ -n "$line" ]; do
  case "$line" in
    SVC_RECALL_MASTER_KEY=) echo "SVC_RECALL_MASTER_KEY=$(openssl rand -base64 32)" ;;
    SVC_INTERNAL_SECRET= | SVC_POSTGRES_PASSWORD= | SVC_CLICKHOUSE_PASSWORD= | SVC_AUDIT_CHECKPOINT_KEY=)
      echo "$line$(openssl rand -hex 32)" ;;
    *) echo "$line" ;;
  esac
done <"$example" >"$target"
echo "make-env: wrote $target (mode 0600); keep a copy of its secrets apart from your backups" >&2
