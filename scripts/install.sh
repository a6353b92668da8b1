#!/usr/bin/env sh
# scripts/install.sh VENV PIP-ARGS…: install into the virtualenv VENV (made if missing) with
# uv when it installs from the registry (parallel downloads: a first `make run` in well under
# half pip's time), else with the venv's own pip. INSTALLER=pip uses pip alone.
set -eu
venv=$1
shift
py="$venv/bin/python"
[ -x "$py" ] || "${PY:-python3}" -m venv "$venv"
if [ "${INSTALLER:-uv}" = uv ]; then
  if [ -x "$venv/bin/uv" ] || "$py" -m pip install --quiet --disable-pip-version-check "uv==0.13.8" >/dev/null 2>&1; then
    "$venv/bin/uv" pip install --quiet --python "$py" "$@" && exit 0
    echo "uv could not install $*: trying pip" >&2
  else
    echo "uv did not install: using pip" >&2
  fi
fi
exec "$py" -m pip install --quiet --disable-pip-version-check "$@"
