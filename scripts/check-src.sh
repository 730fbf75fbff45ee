#!/usr/bin/env bash
# Rules the compiler does not enforce: banned unsafe or locale-dependent C
# calls, and no printing or exiting from the library. Run by ctest.
set -u
cd "$(dirname "$0")/.."
status=0
banned='\b(atoi|atol|atof|sscanf|strtok|strcpy|strcat|sprintf|vsprintf|gets)\s*\('
if grep -rnE "$banned" src include --include='*.c' --include='*.h'; then
  echo "check-src: banned call above (use strtol/strtod, snprintf, memcpy with lengths)" >&2
  status=1
fi
# The library never prints to stdout or exits; only src/cli may.
if grep -rnE '\b(exit|abort)\s*\(|\bprintf\s*\(|\bputs\s*\(' src --include='*.c' | grep -v '^src/cli/'; then
  echo "check-src: the library must not print to stdout or exit (return a status)" >&2
  status=1
fi
[ $status -eq 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit $status
