# lib.sh: helpers for the CLI tests (sourced by tests/cli/*.sh).
# Env from ctest: PLATEAU (binary), PL_SOURCE_DIR, PL_TEST_DATA.
set -u
fails=0
count=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# expect_fail CODE PATTERN -- ARGS...: plateau exits CODE and stderr has one
# line matching PATTERN (grep -E), starting "plateau".
expect_fail() {
  local code=$1 pattern=$2; shift 3
  count=$((count + 1))
  "$PLATEAU" "$@" >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  if [ "$rc" -ne "$code" ] || ! grep -qE -- "$pattern" "$TMP/err"; then
    echo "FAIL: plateau $* -> exit $rc (want $code), stderr:" >&2
    sed 's/^/    /' "$TMP/err" >&2
    echo "    (wanted /$pattern/)" >&2
    fails=$((fails + 1))
  fi
}

# expect_ok ARGS...: plateau exits 0; stdout is left in $TMP/out.
expect_ok() {
  count=$((count + 1))
  "$PLATEAU" "$@" >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "FAIL: plateau $* -> exit $rc, stderr:" >&2
    sed 's/^/    /' "$TMP/err" >&2
    fails=$((fails + 1))
  fi
}

# check DESCRIPTION COMMAND...: a shell condition that must hold.
check() {
  local what=$1; shift
  count=$((count + 1))
  if ! "$@"; then
    echo "FAIL: $what" >&2
    fails=$((fails + 1))
  fi
}

finish() {
  echo "$((count - fails)) passed, $fails failed"
  [ "$fails" -eq 0 ]
}
