#!/usr/bin/env bash
# The PySpark tests (Maven runs this in the python module's integration-test phase; it also runs on its
# own after a `mvn -B -ntp -pl python -am verify` built the jars). Builds a virtual environment from
# requirements-test.txt in the user's cache (MSSQL_CDC_VENV_CACHE, default ~/.cache/mssql-cdc-spark), one per
# pins and Python version, reused by every checkout and build that has the same ones (a clean checkout
# pays the download once per machine, about a minute); builds this package as a user installs it into target/site (never
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

cache="${MSSQL_CDC_VENV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mssql-cdc-spark}"
mkdir -p "$cache"

# cached_venv NAME REQUIREMENTS: prints the path of the cached virtual environment NAME-<key> with REQUIREMENTS
# installed, building it when the cache has none; the key hashes the requirements file and the Python version, so
# a changed pin or Python makes a new one. It is built in a temporary directory beside it and renamed into place
# when complete (the scripts below call its bin/python only, which works from the new path): an interrupted build
# leaves no half environment under the key, and two builds at once (worktrees, CI legs) both end with one. Returns
# non-zero when pip fails (no network on a fresh machine), leaving nothing under the key.
cached_venv() {
  local name="$1" requirements="$2" stamp key venv tmp start
  stamp="$("$python" -c 'import sys, hashlib; print(sys.version.split()[0], hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest())' "$requirements")"
  key="$(printf '%s' "$stamp" | "$python" -c 'import sys, hashlib; print(hashlib.sha256(sys.stdin.read().encode()).hexdigest()[:16])')"
  venv="$cache/$name-$key"
  if [ -f "$venv/.pins" ] && [ "$(cat "$venv/.pins")" = "$stamp" ]; then
    echo "$venv"
    return 0
  fi
  start=$(date +%s)
  tmp="$(mktemp -d "$cache/.$name-$key.XXXXXX")"
  if ! { "$python" -m venv "$tmp" >&2 \
         && "$tmp/bin/python" -m pip install --disable-pip-version-check --quiet -r "$requirements" >&2; }; then
    rm -rf "$tmp"
    return 1
  fi
  echo "$stamp" > "$tmp/.pins"
  # a directory without .pins is what the earlier in-place builds left when interrupted
  if [ -d "$venv" ] && [ ! -f "$venv/.pins" ]; then
    rm -rf "$venv"
  fi
  # rename(2) is atomic and refuses a non-empty target: when another build got there first, its copy is kept
  if "$python" -c 'import os, sys; os.rename(sys.argv[1], sys.argv[2])' "$tmp" "$venv" 2>/dev/null; then
    echo "PySpark tests: built $venv in $(( $(date +%s) - start )) s ($stamp)" >&2
  else
    rm -rf "$tmp"
  fi
  echo "$venv"
}

venv="$(cached_venv venv "$here/requirements-test.txt")"
echo "PySpark venv: $venv"

# The Connect-only client of tests/test_connect.py: a second cached venv, pyspark-client (no JVM, no py4j; a
# small download once per machine). When it cannot be built (no network on a fresh machine) the Connect tests
# skip, saying so; the rest runs.
if cvenv="$(cached_venv connect "$here/requirements-connect.txt")"; then
  export MSSQL_CDC_CONNECT_PYTHON="$cvenv/bin/python"
else
  echo "Spark Connect client venv: could not be built; tests/test_connect.py will skip"
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
