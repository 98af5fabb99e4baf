#!/usr/bin/env bash
# README.md and Docs/*.md as an adopter reads them: their Swift compiles as written, and together they name the whole
# public Swift API (the short README names the main types; the detail, Docs/Reports.md's report fields for example,
# lives in Docs/).
#
#   scripts/check-readme.sh [--linux] [--apple]     (default: both; --apple needs SDK=, an iOS SDK with Swift
#                                                    interfaces, and is skipped without one)
#
# 1. Every ```swift block of README.md and Docs/*.md is type-checked against the library's products (CrashShield,
#    CrashShieldUpload, CrashShieldNotifications, CrashShieldTesting), each block where it stands, errors reported at
#    the document's own lines (#sourceLocation). Declarations stay at the top level; the statements of a block run in a
#    function of their own (`async throws`). A comment `<!-- readme-check: skip ... -->` on the line before a block
#    leaves it out (say why there: a line of Package.swift, a vendor SDK's recipe that a test compiles), `<!--
#    readme-check: apple only ... -->` checks it against the iOS SDK only.
#    The names a block leaves to the app (`MyCrashService`, `reportsURL`, `uploadFolder`, `token`, `upload`, ...) are
#    declared in PRELUDE below; nothing else is.
#    --linux: here, with swiftc against the debug build (.build/debug: run `swift build` first), with DEBUG defined
#    and without (both branches of `#if DEBUG`). UIKit does not exist here: `import UIKit` is dropped and the three
#    UIKit names the quick start uses are declared empty (UIKIT_STANDINS); --apple checks them against UIKit itself.
#    --apple: a package of one target holding the blocks, depending on this checkout, through the Apple type-checker
#    (../shared/apple/typecheck.sh or APPLE_TYPECHECK), as scripts/check-examples.sh checks the example apps.
# 2. (--linux) Every public top-level type and function of those products (the symbol graph: `@_spi` and `package`
#    declarations are not in it) is named in README.md or Docs/*.md in backquotes: a public type the documents do not
#    name is either engine that should not be public or API an app cannot find.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
linux=0 apple=0
for arg in "$@"; do
    case "$arg" in
        --linux) linux=1 ;;
        --apple) apple=1 ;;
        *) echo "check-readme: unknown argument $arg" >&2; exit 2 ;;
    esac
done
[ $# -gt 0 ] || { linux=1; apple=1; }
work=$root/.build/readme-check
mkdir -p "$work"

# make_source PLATFORM OUT: writes the Swift blocks of README.md and Docs/*.md for PLATFORM (linux or apple) into OUT.
make_source() {
    python3 - "$1" "$2" <<'PYEOF'
import glob, re, sys
platform, out = sys.argv[1], sys.argv[2]
PRELUDE = '''
// What README.md's blocks leave to the app.
enum MyCrashService {
    static func record(_ report: CrashReport) {}
}
let reportsURL = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("reports.jsonl")
let uploadFolder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("uploads")
let sentryFolder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sentry")
let token = "token"
var configuration = Configuration.production
func upload(_ reports: [CrashReport]) async throws -> Bool { true }
func crashlyticsSink() -> ReportHandlerSink { ReportHandlerSink { _ in } }
'''
UIKIT_STANDINS = '''
// UIKit is not here: the names the quick start uses, empty (--apple checks them against UIKit).
class UIResponder {}
protocol UIApplicationDelegate {}
final class UIApplication {
    struct LaunchOptionsKey: Hashable {}
}
'''
DECL = re.compile(r'(@\w+|(public |private |fileprivate |internal |final |open )*(func|class|struct|enum|protocol|'
                  r'extension|actor|typealias)\b)')
imports = {'Foundation', 'CrashShield', 'CrashShieldUpload', 'CrashShieldNotifications', 'CrashShieldTesting'}
body, count = [], 0
for document in ['README.md'] + sorted(glob.glob('Docs/*.md')):
    lines = open(document).read().split('\n')
    i = 0
    while i < len(lines):
        if lines[i].strip() != '```swift':
            i += 1
            continue
        start = i + 1
        end = start
        while lines[end].strip() != '```':
            end += 1
        marker = lines[i - 1].strip() if i > 0 else ''
        i = end + 1
        if marker.startswith('<!-- readme-check: skip'):
            continue
        if marker.startswith('<!-- readme-check: apple only') and platform != 'apple':
            continue
        count += 1
        # Top-level items: a declaration (with the comments and attributes above it) runs to the `}` in column 0 that
        # closes it; everything else is a statement.
        decls, stmts, pending = [], [], []
        k = start
        while k < end:
            line = lines[k]
            m = re.match(r'import (\w+)', line)
            if m:
                imports.add(m.group(1))
                k += 1
                continue
            if line.startswith('//') or line.startswith('#') or not line.strip():
                pending.append(k)
                k += 1
                continue
            if not line.startswith(' ') and DECL.match(line):
                item = pending + [k]
                if line.rstrip().endswith('{'):
                    while lines[k] != '}':
                        k += 1
                        item.append(k)
                decls.append(item)
            elif stmts and stmts[-1][-1] == (pending or [k])[0] - 1:
                stmts[-1].extend(pending + [k])   # one statement may span lines: one chunk, one #sourceLocation
            else:
                stmts.append(pending + [k])
            pending = []
            k += 1
        if pending:
            (stmts if stmts else decls).append(pending)
        def emit(items, indent=''):
            for item in items:
                body.append('#sourceLocation(file: "%s", line: %d)' % (document, item[0] + 1))
                body.extend(indent + lines[n] for n in item)
                body.append('#sourceLocation()')
        emit(decls)
        if stmts:
            body.append('func %sLine%d() async throws {' % (re.sub(r'\W', '_', document), start + 1))
            emit(stmts, '    ')
            body.append('}')
if platform == 'linux':
    imports.discard('UIKit')
head = ['// Generated by scripts/check-readme.sh from README.md and Docs/*.md: do not edit.']
head += ['import %s' % name for name in sorted(imports)]
text = '\n'.join(head) + '\n' + PRELUDE + (UIKIT_STANDINS if platform == 'linux' else '') + '\n'.join(body) + '\n'
open(out, 'w').write(text)
print(count)
PYEOF
}

failed=0
if [ "$linux" = 1 ]; then
    modules=.build/debug/Modules
    [ -d "$modules" ] || { echo "check-readme: no $modules: run swift build first" >&2; exit 2; }
    flags=(-I "$modules" -Xcc "-fmodule-map-file=$root/Sources/CrashShieldRuntime/include/module.modulemap")
    for map in .build/debug/*.build/module.modulemap .build/checkouts/swift-atomics/Sources/_AtomicsShims/include/module.modulemap; do
        [ -f "$map" ] && flags+=(-Xcc "-fmodule-map-file=$root/$map")
    done
    blocks=$(make_source linux "$work/Readme.swift")
    for defines in "-DDEBUG" ""; do
        # shellcheck disable=SC2086
        if ! swiftc -typecheck -swift-version 5 $defines "${flags[@]}" "$work/Readme.swift" > "$work/linux.log" 2>&1; then
            grep -E "error:" "$work/linux.log" >&2 || cat "$work/linux.log" >&2
            echo "check-readme: the Swift of README.md and Docs/*.md does not compile (${defines:-without DEBUG}; generated: $work/Readme.swift)" >&2
            failed=1
        fi
    done
    [ "$failed" = 0 ] && echo "check-readme: $blocks Swift blocks of README.md and Docs/*.md compile against the library (Linux, with and without DEBUG)"

    # The public API: every product's top-level public names, from its symbol graph.
    rm -rf "$work/symbols" && mkdir -p "$work/symbols"
    for module in CrashShield CrashShieldUpload CrashShieldNotifications CrashShieldTesting; do
        swift-symbolgraph-extract -module-name "$module" -target "$(swiftc -print-target-info | python3 -c 'import json,sys; print(json.load(sys.stdin)["target"]["triple"])')" \
            -minimum-access-level public -output-dir "$work/symbols" "${flags[@]}" > "$work/symbols.log" 2>&1 \
            || { cat "$work/symbols.log" >&2; echo "check-readme: no symbol graph for $module" >&2; exit 1; }
    done
    if ! python3 - "$work/symbols" <<'PYEOF'
import glob, json, re, sys
readme = ''.join(open(document).read() for document in ['README.md'] + sorted(glob.glob('Docs/*.md')))
named = set(re.findall(r'`([^`]*)`', readme))
words = set()
for text in named:
    words.update(re.findall(r'[A-Za-z_][A-Za-z0-9_]*', text))
missing, total = [], 0
for path in sorted(glob.glob(sys.argv[1] + '/*.symbols.json')):
    graph = json.load(open(path))
    module = graph['module']['name']
    for symbol in graph['symbols']:
        if len(symbol['pathComponents']) != 1 or symbol.get('spi'):
            continue
        total += 1
        name = re.match(r'[A-Za-z_][A-Za-z0-9_]*', symbol['pathComponents'][0]).group(0)
        if name not in words:
            missing.append('%s.%s (%s)' % (module, name, symbol['kind']['displayName']))
if missing:
    print('check-readme: public, but neither README.md nor Docs/*.md names it (make it @_spi, package or internal, or '
          'document it):')
    for name in missing:
        print('  ' + name)
    sys.exit(1)
print('check-readme: the %d public top-level types and functions of the products are all named in README.md and '
      'Docs/*.md' % total)
PYEOF
    then
        failed=1
    fi
fi

if [ "$apple" = 1 ]; then
    if [ -z "${SDK:-}" ] || [ ! -d "${SDK:-}/System/Library/Frameworks/UIKit.framework" ] \
        || ! ls "$SDK"/usr/lib/swift/Swift.swiftmodule > /dev/null 2>&1; then
        echo "check-readme: Apple check skipped (SDK= names no iOS SDK with Swift interfaces)"
    else
        checker=${APPLE_TYPECHECK:-../shared/apple/typecheck.sh}
        [ -x "$checker" ] || { echo "check-readme: no checker at $checker (set APPLE_TYPECHECK)" >&2; exit 2; }
        [ -d .build/checkouts ] || swift package resolve > /dev/null
        package=$work/apple
        rm -rf "$package" && mkdir -p "$package/Sources/ReadmeCheck" "$package/deps"
        blocks=$(make_source apple "$package/Sources/ReadmeCheck/Readme.swift")
        cat > "$package/Package.swift" <<EOF
// swift-tools-version:5.9
// Generated by scripts/check-readme.sh: the Swift blocks of README.md and Docs/*.md, depending on CrashShield as an app does.
import PackageDescription

let package = Package(
    name: "ReadmeCheck",
    platforms: [.iOS(.v13)],
    dependencies: [.package(name: "CrashShield", path: "$root")],
    targets: [
        .target(
            name: "ReadmeCheck",
            dependencies: [
                .product(name: "CrashShield", package: "CrashShield"),
                .product(name: "CrashShieldUpload", package: "CrashShield"),
                .product(name: "CrashShieldNotifications", package: "CrashShield"),
                .product(name: "CrashShieldTesting", package: "CrashShield"),
            ])
    ]
)
EOF
        ln -s "$root" "$package/deps/CrashShield"
        for dep in .build/checkouts/*; do ln -s "$root/$dep" "$package/deps/"; done
        log=$work/apple.log
        runtime=$root/Sources/CrashShieldRuntime/include
        export WORK=${WORK:-$root/.build/apple-typecheck-work}   # the checker's caches, shared with check-apple.sh
        DEPS_DIR=$package/deps EXTRA_CFLAGS="-I $runtime -fmodule-map-file=$runtime/module.modulemap" \
            "$checker" "$package" "$SDK" > "$log" 2>&1 || true
        line=$(tail -1 "$log")
        case "$line" in
            "apple typecheck: 0 objc errors, 0 swift errors"* | "apple typecheck: n/a objc errors, 0 swift errors"*)
                echo "check-readme: $blocks Swift blocks of README.md and Docs/*.md compile against the library for iOS ($line)" ;;
            *)
                grep -E "error:" "$log" | sort -u >&2 || true
                echo "check-readme: the Swift of README.md and Docs/*.md does not compile for iOS: $line (full log: $log)" >&2
                failed=1 ;;
        esac
    fi
fi
exit $failed
