#!/usr/bin/env bash
# docs/cli.md must match what the binary's option tables print (regenerate
# with scripts/gen-cli-doc.sh BUILD/plateau after changing an option).
. "$(dirname "$0")/lib.sh"
bash "$PL_SOURCE_DIR/scripts/gen-cli-doc.sh" "$PLATEAU" "$TMP/cli.md"
check "docs/cli.md is up to date (run scripts/gen-cli-doc.sh)" \
  diff -u "$PL_SOURCE_DIR/docs/cli.md" "$TMP/cli.md"
# the man page and bash completion come from the same tables
bash "$PL_SOURCE_DIR/scripts/gen-man.sh" "$PLATEAU" "$TMP/plateau.1"
check "docs/plateau.1 is up to date (run scripts/gen-man.sh)" \
  diff -u "$PL_SOURCE_DIR/docs/plateau.1" "$TMP/plateau.1"
bash "$PL_SOURCE_DIR/scripts/gen-completion.sh" "$PLATEAU" "$TMP/completion"
check "docs/plateau.bash-completion is up to date (run scripts/gen-completion.sh)" \
  diff -u "$PL_SOURCE_DIR/docs/plateau.bash-completion" "$TMP/completion"
# every option of every command's table is in the man page and the completion
for verb in predict search sweep validate collectives list study; do
  for opt in $("$PLATEAU" "$verb" --help | awk '/^options:/ {on = 1; next} !NF {on = 0} on && /^  --/ {print $1}'); do
    check "man page has $verb $opt" grep -q -- "^$(printf '%s' "$opt" | sed 's/-/\\\\-/g')" "$TMP/plateau.1"
    check "completion has $verb $opt" grep -Eq -- "^    $verb\) opts=\".*$opt( |\")" "$TMP/completion"
  done
done
# every verb answers --help with exit 0 and a usage line
for verb in $("$PLATEAU" --help | awk '/^commands:/{on=1; next} on && NF {print $1} on && !NF {exit}'); do
  expect_ok "$verb" --help
  check "$verb --help starts with usage" grep -q "^usage: plateau $verb" "$TMP/out"
done
# `plateau help CMD [SUB]` is CMD's --help
expect_ok help predict
check "help predict = predict --help" sh -c "'$PLATEAU' predict --help | cmp -s - '$TMP/out'"
expect_ok help trace analyze
check "help trace analyze = trace analyze --help" sh -c "'$PLATEAU' trace analyze --help | cmp -s - '$TMP/out'"
expect_fail 2 "^plateau: help: unknown command 'nope'" -- help nope
finish
