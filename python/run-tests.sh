#!/usr/bin/env bash
# The PySpark tests (Maven runs this in the python module's integration-test phase; it also runs on its
# own after a `mvn -B -ntp -pl python -am verify` built the jars). Builds a virtual environment from
# requirements-test.txt in the user's cache (MSSQL_CDC_VENV_CACHE, default ~/.cache/mssql-cdc-spark), one per
# pins and Python version, reused by every checkout and build that has the same ones (a clean checkout
# pays the download once per machine); builds this package as a user installs it into target/site (never
# into the shared environment), and runs pytest. Without Python 3.10+ it prints one line and succeeds.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
target="$here/target"
mkdir -p "$target"

python=""
for candidate in ${PYTHON:-} python3 python3.13 python3.12 python3.11 python3.10 python; do
  if command -v "$candidate" >/dev/null 2>&1 \
     && "$candidate" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' 2>/dev/null; then
    python="$(command -v "$candidate")"
    break
  fi
done
if [ -z "$python" ]; then
  echo "PySpark tests SKIPPED: they need Python 3.10+ (none on PATH; set PYTHON=/path/to/python3)."
  exit 0
fi

stamp="$("$python" -c 'import sys, hashlib; print(sys.version.split()[0], hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest())' "$here/requirements-test.txt")"
cache="${MSSQL_CDC_VENV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mssql-cdc-spark}"
venv="$cache/venv-$(printf '%s' "$stamp" | "$python" -c 'import sys, hashlib; print(hashlib.sha256(sys.stdin.read().encode()).hexdigest()[:16])')"
mkdir -p "$cache"
create_venv() {
  if [ -f "$venv/.pins" ] && [ "$(cat "$venv/.pins")" = "$stamp" ]; then
    echo "PySpark venv: reusing $venv ($stamp)"
    return
  fi
  local start
  start=$(date +%s)
  # built where it lives (a venv's scripts name their own path); .pins, written last, marks it complete
  rm -rf "$venv"
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install --disable-pip-version-check --quiet -r "$here/requirements-test.txt"
  echo "$stamp" > "$venv/.pins"
  echo "PySpark venv: created $venv in $(( $(date +%s) - start )) s ($stamp)"
}
if command -v flock >/dev/null 2>&1; then
  # two builds on one machine (worktrees, CI legs) create it once; the second waits and reuses it
  exec 9>"$venv.lock"
  flock 9
  create_venv
  flock -u 9
else
  create_venv
fi

# The Connect-only client of tests/test_connect.py: a second cached venv, pyspark-client (no JVM, no py4j).
# When it cannot be built (no network on a fresh machine) that test skips, saying so; the rest runs.
cstamp="$("$python" -c 'import sys, hashlib; print(sys.version.split()[0], hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest())' "$here/requirements-connect.txt")"
cvenv="$cache/connect-$(printf '%s' "$cstamp" | "$python" -c 'import sys, hashlib; print(hashlib.sha256(sys.stdin.read().encode()).hexdigest()[:16])')"
create_connect_venv() {
  if [ -f "$cvenv/.pins" ] && [ "$(cat "$cvenv/.pins")" = "$cstamp" ]; then
    return
  fi
  rm -rf "$cvenv"
  if "$python" -m venv "$cvenv" \
     && "$cvenv/bin/python" -m pip install --disable-pip-version-check --quiet -r "$here/requirements-connect.txt"; then
    echo "$cstamp" > "$cvenv/.pins"
    echo "Spark Connect client venv: created $cvenv ($cstamp)"
  else
    echo "Spark Connect client venv: could not be built; tests/test_connect.py will skip"
    rm -rf "$cvenv"
  fi
}
if command -v flock >/dev/null 2>&1; then
  exec 8>"$cvenv.lock"
  flock 8
  create_connect_venv
  flock -u 8
else
  create_connect_venv
fi
if [ -f "$cvenv/.pins" ]; then
  export MSSQL_CDC_CONNECT_PYTHON="$cvenv/bin/python"
fi

# The package as a user installs it (a wheel through its own build backend), into this build's own
# directory: the shared environment holds only the pinned dependencies.
site="$target/site"
rm -rf "$site"
"$venv/bin/python" -m pip install --disable-pip-version-check --quiet --no-deps --no-build-isolation \
  --target "$site" "$here"
export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"

export MSSQL_CDC_REPO_ROOT="$(cd "$here/.." && pwd)"
export PYTHONDONTWRITEBYTECODE=1
cd "$here"   # pyproject.toml's testpaths: tests/ unless arguments name tests
# Without arguments the long scenario tests (marker "slow") are left out unless MSSQL_CDC_ALL_TESTS=1, which
# Maven's -Pall-tests (CI) sets: the README's test command stays short, CI runs every test.
select=()
if [ "$#" -eq 0 ] && [ "${MSSQL_CDC_ALL_TESTS:-0}" != "1" ]; then
  select=(-m "not slow")
fi
exec "$venv/bin/python" -m pytest -p no:cacheprovider -ra --junitxml="$target/pytest-results.xml" "${select[@]}" "$@"
