#!/usr/bin/env bash
# docs/cli.md must match what the binary's option tables print (regenerate
# with scripts/gen-cli-doc.sh BUILD/plateau after changing an option).
. "$(dirname "$0")/lib.sh"
bash "$PL_SOURCE_DIR/scripts/gen-cli-doc.sh" "$PLATEAU" "$TMP/cli.md"
check "docs/cli.md is up to date (run scripts/gen-cli-doc.sh)" \
  diff -u "$PL_SOURCE_DIR/docs/cli.md" "$TMP/cli.md"
# every verb answers --help with exit 0 and a usage line
for verb in $("$PLATEAU" --help | awk '/^commands:/{on=1; next} on && NF {print $1} on && !NF {exit}'); do
  expect_ok "$verb" --help
  check "$verb --help starts with usage" grep -q "^usage: plateau $verb" "$TMP/out"
done
finish
