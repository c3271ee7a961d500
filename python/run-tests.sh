#!/usr/bin/env bash
# The PySpark tests (Maven runs this in the python module's integration-test phase; it also runs on its
# own after a `mvn -B -ntp -pl python -am verify` built the jars). Builds target/venv from
# requirements-test.txt (reused while that file and the Python version are unchanged), installs this
# package into it, and runs pytest. Without Python 3.10+ it prints one line and succeeds.
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

venv="$target/venv"
stamp="$("$python" -c 'import sys, hashlib; print(sys.version.split()[0], hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest())' "$here/requirements-test.txt")"
if [ -f "$venv/.pins" ] && [ "$(cat "$venv/.pins")" = "$stamp" ]; then
  echo "PySpark venv: reusing $venv ($stamp)"
else
  start=$(date +%s)
  rm -rf "$venv"
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install --disable-pip-version-check --quiet -r "$here/requirements-test.txt"
  echo "$stamp" > "$venv/.pins"
  echo "PySpark venv: created $venv in $(( $(date +%s) - start )) s ($stamp)"
fi

# The package as a user installs it (a wheel through its own build backend), not a path on sys.path.
"$venv/bin/python" -m pip install --disable-pip-version-check --quiet --no-deps --no-build-isolation \
  --force-reinstall "$here"

export MSSQL_CDC_REPO_ROOT="$(cd "$here/.." && pwd)"
export PYTHONDONTWRITEBYTECODE=1
cd "$here"   # pyproject.toml's testpaths: tests/ unless arguments name tests
exec "$venv/bin/python" -m pytest -p no:cacheprovider -ra --junitxml="$target/pytest-results.xml" "$@"
