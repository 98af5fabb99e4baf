#!/usr/bin/env bash
# Swift layout: every Swift file of both packages and the example apps is as `swift-format` (the toolchain's own
# formatter, configured in .swift-format: 120 columns, 4 spaces) writes it. What it cannot break (a long string
# literal, a long comment) may pass 120 columns; everything else is wrapped. To fix a failure:
#   swift-format format --in-place --recursive $(scripts/check-format.sh --paths)
set -euo pipefail
cd "$(dirname "$0")/.."
paths=(Package.swift Sources Tests Tools/Package.swift Tools/Sources Tools/Tests
       Examples/ObjCApp/Package.swift Examples/UIKitApp/Package.swift Examples/UIKitApp/Sources)
if [ "${1:-}" = --paths ]; then echo "${paths[@]}"; exit 0; fi
formatter=$(command -v swift-format || true)
[ -n "$formatter" ] || formatter=$(dirname "$(command -v swift)")/swift-format
[ -x "$formatter" ] || { echo "check-format: swift-format not found beside swift" >&2; exit 1; }
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
status=0
while IFS= read -r file; do
    "$formatter" format --configuration .swift-format "$file" > "$scratch/out" 2>"$scratch/err" \
        || { echo "check-format: swift-format failed on $file: $(cat "$scratch/err")" >&2; status=1; continue; }
    cmp -s "$file" "$scratch/out" || { echo "check-format: $file is not as swift-format writes it" >&2; status=1; }
done < <(find "${paths[@]}" -name '*.swift' -type f | sort)
count=$(find "${paths[@]}" -name '*.swift' -type f | wc -l)
[ $status -eq 0 ] && echo "check-format: $count Swift files as swift-format writes them (.swift-format: 120 columns)"
exit $status
