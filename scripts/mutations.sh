#!/usr/bin/env bash
# npm run test:mutations [names]: shows that tests fail when the behaviour they name is broken.
# Each test/mutations/<name>.patch is a small diff of src/ that breaks one behaviour; its header (the
# lines before the first "diff --git") says what it breaks and which tests must catch it:
#
#   Mutation: the retry of a finished key sends the message again, then answers the stored result
#   Check: test/sending/reply.test.ts | replies to a synced email | to have a length of 1 but got 2
#
# "Check:" is: test file | mocha --grep (a part of the test's title) | a regular expression (grep -E)
# the failure must match, so the test fails for its reason and not a crash. A patch may list several.
# For each patch the script applies it in a temporary git worktree of the current state (HEAD plus
# uncommitted changes to tracked files; never in this working tree), builds, runs each check's test
# alone and expects it to FAIL. It ends with a table: mutation, test, failed as expected, the first
# failure line. Exit status 1 when a check did not fail as expected. Slow (a build and a test run per
# patch), so not part of CI; see CONTRIBUTING.md, "Mutation checks".
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

names=("$@")
if [ "${#names[@]}" -eq 0 ]; then
  for p in test/mutations/*.patch; do names+=("$(basename "$p" .patch)"); done
fi

# The state under test: HEAD with the working tree's changes to tracked files (a stash commit that
# touches neither the index nor the working tree).
base="$(git stash create)"
base="${base:-$(git rev-parse HEAD)}"
work="$(mktemp -d /tmp/crm-mutations.XXXXXX)"
logs="$work/logs"
tree="$work/tree"
mkdir -p "$logs"
cleanup() {
  # MUTATIONS_LOGS=<dir> keeps every build and test log (<name>.build, <name>.<check>.test).
  if [ -n "${MUTATIONS_LOGS:-}" ]; then mkdir -p "$MUTATIONS_LOGS" && cp "$logs"/* "$MUTATIONS_LOGS"/ 2>/dev/null || true; fi
  git -C "$root" worktree remove --force "$tree" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
git worktree add --detach --quiet "$tree" "$base"
ln -s "$root/node_modules" "$tree/node_modules"

rows=()
status=0
row() { rows+=("$1"$'\t'"$2"$'\t'"$3"$'\t'"$4"); }

for name in "${names[@]}"; do
  patch="$root/test/mutations/$name.patch"
  if [ ! -f "$patch" ]; then
    row "$name" "-" "no (no such patch)" ""
    status=1
    continue
  fi
  git -C "$tree" reset --hard --quiet "$base"
  # A mutation breaks the program, never the tests that judge it.
  outside="$(grep -E '^\+\+\+ b/' "$patch" | grep -v '^+++ b/src/' || true)"
  if [ -n "$outside" ]; then
    row "$name" "-" "no (patch changes more than src/)" "$outside"
    status=1
    continue
  fi
  if ! git -C "$tree" apply "$patch" 2>"$logs/$name.apply"; then
    row "$name" "-" "no (patch does not apply)" "$(head -n1 "$logs/$name.apply")"
    status=1
    continue
  fi
  echo "== $name: $(sed -n 's/^Mutation: //p' "$patch" | head -n1)"
  if ! (cd "$tree" && npm run build --silent) >"$logs/$name.build" 2>&1; then
    row "$name" "-" "no (build failed)" "$(grep -m1 -E 'error' "$logs/$name.build" || true)"
    status=1
    continue
  fi
  i=0
  while IFS= read -r check; do
    i=$((i + 1))
    IFS='|' read -r file title expected <<<"$check"
    file="$(echo "$file" | xargs)"
    title="$(echo "$title" | sed -e 's/^ *//' -e 's/ *$//')"
    expected="$(echo "$expected" | sed -e 's/^ *//' -e 's/ *$//')"
    log="$logs/$name.$i.test"
    echo "   $file --grep '$title'"
    set +e
    # Each tier's own harness: test/unit/ and test/medium/ have their mocha configs (CONTRIBUTING.md, "Tests").
    config=()
    case "$file" in test/unit/*) config=(--config .mocharc.unit.json) ;; test/medium/*) config=(--config .mocharc.medium.json) ;; esac
    (cd "$tree" && npx mocha "${config[@]}" --no-parallel --reporter spec "$file" --grep "$title") >"$log" 2>&1
    code=$?
    set -e
    passing="$(sed -n 's/^ *\([0-9]*\) passing.*/\1/p' "$log" | tail -n1)"
    failing="$(sed -n 's/^ *\([0-9]*\) failing.*/\1/p' "$log" | tail -n1)"
    # The first failure's message and the test line it was raised at.
    # Spec reporter: "  1) <suite>", "       <test title>:", a blank line, then the message.
    first="$(awk '/^  1\) / { f = 1; next } f == 1 && /:$/ { f = 2; next } f == 2 && NF { sub(/^ +/, ""); print; exit }' "$log" | cut -c1-160)"
    at="$(grep -m1 -oE "test/[^ ):]+\.test\.ts:[0-9]+" "$log" || true)"
    shown="${first:-"(no failure message)"}${at:+ @ $at}"
    if [ "$code" -eq 0 ] || [ "${failing:-0}" -eq 0 ]; then
      row "$name" "$file: $title" "NO: it passed (${passing:-0} passing)" "$shown"
      status=1
    elif [ -n "$expected" ] && ! grep -qE -- "$expected" "$log"; then
      row "$name" "$file: $title" "no: failed, not with /$expected/" "$shown"
      status=1
    else
      row "$name" "$file: $title" "yes" "$shown"
    fi
  done < <(sed -n 's/^Check: //p' "$patch")
  if [ "$i" -eq 0 ]; then
    row "$name" "-" "no (no Check: line)" ""
    status=1
  fi
done

echo
echo "| mutation | test | failed as expected | first failure |"
echo "|---|---|---|---|"
for r in "${rows[@]}"; do
  IFS=$'\t' read -r a b c d <<<"$r"
  echo "| $a | $b | $c | ${d//|/\\|} |"
done
exit "$status"
