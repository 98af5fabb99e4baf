#!/usr/bin/env bash
# Ownership of objects in the Objective-C layer (Sources/CrashShieldRuntime, Sources/CrashShieldObjC) under ARC, which
# is how SwiftPM builds it on Apple; the build here is MRC (GCC's libobjc has no ARC), so nothing else compiles it
# that way. For every .m file of both targets, under ARC:
#   1. compile with -Werror and the warnings below;
#   2. the clang static analyzer (--analyze): any warning in our files fails;
#   3. the ownership rule (CSRMemory.h), on clang's AST: an object leaves a function (a return, or a store through a
#      parameter, into an ivar or a global) through a plain `__bridge` cast (CSR_BRIDGE) only when it is a parameter
#      (borrowed from the caller), a class or a literal. A strong local or a message's result would be released by
#      ARC when its scope (or the statement) ends while MRC hands it on: it must leave through a CSR_PASS_ macro,
#      whose `_NEW` forms take only what the function made (alloc/init, new, copy, mutableCopy).
# With GNUstep's headers (always), and with an iOS SDK (arm64-apple-ios13.0, modules, as SwiftPM builds it) when SDK
# names one or ~/apple-sdks/iPhoneOS17.4.sdk exists (NO_SDK=1 skips it); the analyzer also runs once with the MRC flags
# the Linux build uses. The SDK is never modified: its copied-symlink headers are remapped with a VFS overlay.
#   scripts/check-ownership.sh [PACKAGE_ROOT]     (default: this package; another root checks other sources, e.g. an
#                                                  older commit unpacked with `git archive`)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
root=$(cd "${1:-$here}" && pwd)
cd "$root"
CLANG=${CLANG:-$(command -v clang || echo /opt/swift/usr/bin/clang)}
[ -x "$CLANG" ] || { echo "check-ownership: no clang (the Swift toolchain's: /opt/swift/usr/bin/clang)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "check-ownership: python3 is needed" >&2; exit 1; }
work="$here/.build/ownership"
mkdir -p "$work"
gcc_include=$(gcc -print-file-name=include)

# Warnings: -Wall -Wextra, and ARC's own. Not: unused parameters (C callbacks have fixed signatures), IMP casts
# (calling an IMP through its real signature is how the runtime is used), missing field initializers ({0}).
WARNINGS=(-Werror -Wall -Wextra -Wno-unused-parameter -Wno-cast-function-type-mismatch -Wno-missing-field-initializers
          -Warc-repeated-use-of-weak -Wobjc-missing-super-calls -Wshadow -Wstrict-prototypes
          -Wsemicolon-before-method-body -Wimplicit-retain-self -Wunguarded-availability)

# GCC's objc/runtime.h (its inline object_getClass reads `object->class_pointer`) does not compile under ARC: a VFS
# overlay gives clang a copy with that one line written as ARC accepts it (same meaning). Nothing on disk changes.
shim="$work/gnu-objc"
mkdir -p "$shim/objc"
sed 's/^\(\s*\)return object->class_pointer;/\1return *(__unsafe_unretained Class *)(__bridge void *)object;/' \
    "$gcc_include/objc/runtime.h" > "$shim/objc/runtime.h"
printf '{"version": 0, "roots": [{"type": "file", "name": "%s", "external-contents": "%s"}]}\n' \
    "$gcc_include/objc/runtime.h" "$shim/objc/runtime.h" > "$work/gnu-overlay.json"
GNU_COMMON=(-fobjc-runtime=gnustep-2.0 -fexceptions -fobjc-exceptions -DGNUSTEP -DGNUSTEP_BASE_LIBRARY=1
            -DGNU_RUNTIME=1 -D_NATIVE_OBJC_EXCEPTIONS -fconstant-string-class=NSConstantString
            -isystem /usr/include/GNUstep -ivfsoverlay "$work/gnu-overlay.json" -isystem "$gcc_include"
            -Wno-deprecated-objc-isa-usage -Wno-objc-root-class)
# What Package.swift passes on Linux (MRC), for the analyzer's retain-count checks of the code that runs here.
GNU_MRC=(-fobjc-runtime=gcc -fexceptions -fobjc-exceptions -DGNUSTEP -DGNUSTEP_BASE_LIBRARY=1 -DGNU_RUNTIME=1
         -D_NATIVE_OBJC_EXCEPTIONS -fconstant-string-class=NSConstantString -fno-strict-aliasing
         -isystem /usr/include/GNUstep -isystem "$gcc_include" -Wno-deprecated-objc-isa-usage -Wno-objc-root-class)

sdk=${SDK:-$HOME/apple-sdks/iPhoneOS17.4.sdk}
[ "${NO_SDK:-0}" = 1 ] && sdk=
if [ -n "$sdk" ] && [ ! -d "$sdk/usr/include" ]; then
    [ -n "${SDK:-}" ] && { echo "check-ownership: '$SDK' is not an Apple SDK folder" >&2; exit 1; }
    sdk=
fi
case "$sdk" in *MacOSX*) target=arm64-apple-macos10.15 ;; *) target=arm64-apple-ios13.0 ;; esac
if [ -n "$sdk" ]; then
    # SDKs kept in git have their header symlinks turned into copies (usr/include/libxml vs libxml2/libxml, pthread.h
    # vs pthread/pthread.h), which modules see as two headers: map each copy onto the file Apple links it to.
    python3 - "$sdk" "$work/sdk-overlay.json" <<'PYEOF'
import filecmp, json, os, sys
sdk, out = sys.argv[1], sys.argv[2]
inc = os.path.join(sdk, "usr", "include")
roots = []
def link(copy, real):
    roots.append({"type": "file", "name": copy, "external-contents": real})
for top, sub in (("libxml", "libxml2/libxml"),):
    p, q = os.path.join(inc, top), os.path.join(inc, sub)
    if os.path.isdir(p) and not os.path.islink(p) and os.path.isdir(q):
        for f in sorted(os.listdir(p)):
            if os.path.isfile(os.path.join(q, f)):
                link(os.path.join(p, f), os.path.join(q, f))
subdirs = sorted(d for d in os.listdir(inc) if os.path.isdir(os.path.join(inc, d)) and not os.path.islink(os.path.join(inc, d)))
for f in sorted(os.listdir(inc)):
    p = os.path.join(inc, f)
    if f.endswith(".h") and os.path.isfile(p) and not os.path.islink(p):
        for d in subdirs:
            q = os.path.join(inc, d, f)
            if os.path.isfile(q) and not os.path.islink(q) and filecmp.cmp(p, q, shallow=False):
                link(p, q)
                break
json.dump({"version": 0, "roots": roots}, open(out, "w"))
PYEOF
    IOS_COMMON=(-target "$target" -isysroot "$sdk" -ivfsoverlay "$work/sdk-overlay.json" -fmodules
                -fmodules-cache-path="$work/module-cache" -DSWIFT_PACKAGE=1)
fi

shopt -s nullglob
files=()
# Sources/CrashShieldRuntime/GNUstep: what only GNUstep compiles (the iOS pass sees empty files there); Apple/: what
# only Apple compiles (the GNUstep pass sees empty files there).
for f in Sources/CrashShieldRuntime/*.m Sources/CrashShieldRuntime/Apple/*.m Sources/CrashShieldRuntime/GNUstep/*.m \
    Sources/CrashShieldObjC/*.m; do files+=("$f"); done
failures=0
compile_errors=0
analyzer_warnings=0
asts="$work/ast"
rm -rf "$asts"
mkdir -p "$asts"

# Diagnostics from our files only (system headers are -isystem; GNUstep's are not ours).
ours() { grep -E '^Sources/CrashShield(Runtime|ObjC)/.*: (warning|error): ' || true; }

for f in "${files[@]}"; do
    target_dir=$(dirname "$f")
    case "$(basename "$target_dir")" in Apple | GNUstep) target_dir=$(dirname "$target_dir") ;; esac
    name=$(basename "$target_dir")
    includes=(-I "$target_dir/include" -I "$target_dir")
    gnu_blocks=(-fno-blocks)
    if [ "$name" = CrashShieldObjC ]; then
        includes+=(-I Sources/CrashShieldObjC/include)
        gnu_blocks=(-fblocks -I Sources/CrashShieldObjC/GNUstepBlocks)
    fi
    configs=(gnustep)
    [ -n "$sdk" ] && configs+=(ios)
    for config in "${configs[@]}"; do
        if [ "$config" = gnustep ]; then flags=("${GNU_COMMON[@]}" "${gnu_blocks[@]}" "${includes[@]}")
        else flags=("${IOS_COMMON[@]}" -fmodule-name="$name" "${includes[@]}"); fi
        out=$("$CLANG" -fsyntax-only -fobjc-arc "${flags[@]}" "${WARNINGS[@]}" "$f" 2>&1 || true)
        diags=$(ours <<<"$out")
        if [ -n "$diags" ] || grep -qE '(fatal )?error: ' <<<"$out"; then
            echo "$out" | grep -E ': (fatal )?(warning|error): ' | sed "s/^/[$config ARC -Werror] /"
            compile_errors=$((compile_errors + $(grep -cE ': (fatal )?(error|warning): ' <<<"$out")))
        fi
        out=$("$CLANG" --analyze -fobjc-arc "${flags[@]}" -Xanalyzer -analyzer-output=text -o /dev/null "$f" 2>&1 || true)
        diags=$(ours <<<"$out" | grep -v ': note: ' || true)
        if [ -n "$diags" ]; then
            echo "$diags" | sed "s/^/[$config ARC analyzer] /"
            analyzer_warnings=$((analyzer_warnings + $(grep -c . <<<"$diags")))
        fi
        # The AST of our declarations (clang's JSON dump of a whole Foundation translation unit crashes; the names of
        # everything in both targets start with one of these).
        for filter in csr_ CS cs_; do
            "$CLANG" -fsyntax-only -fobjc-arc "${flags[@]}" -w -Xclang -ast-dump=json -Xclang -ast-dump-filter="$filter" \
                "$f" > "$asts/$config-$(basename "$f")-$filter.json" 2>/dev/null || true
        done
    done
    if [ -z "${NO_MRC:-}" ]; then
        out=$("$CLANG" --analyze "${GNU_MRC[@]}" "${gnu_blocks[@]}" "${includes[@]}" -o /dev/null "$f" 2>&1 || true)
        diags=$(ours <<<"$out")
        if [ -n "$diags" ]; then
            echo "$diags" | sed "s/^/[gnustep MRC analyzer] /"
            analyzer_warnings=$((analyzer_warnings + $(grep -c . <<<"$diags")))
        fi
    fi
done

set +e
python3 - "$asts" <<'PYEOF'
# The ownership rule on clang's JSON AST (see the top of this script and CSRMemory.h).
import json, os, re, sys

ROOTS = ("Sources/CrashShieldRuntime/", "Sources/CrashShieldObjC/")
# ARC method families whose result is +1 (init also consumes its receiver).
FAMILY = re.compile(r"^_*(alloc|new|copy|mutableCopy|init)([A-Z:_]|$)")
PASS_NEW = {"csr_pass_retained_new", "csr_pass_autoreleased_new"}
PASS_OTHER = {"csr_pass_retained", "csr_pass_autoreleased", "csr_pass_borrowed"}
TRANSPARENT = {"ParenExpr", "ImplicitCastExpr", "ExprWithCleanups", "ConstantExpr", "FullExpr"}

def documents(path):
    text = open(path, errors="replace").read()
    decoder, i = json.JSONDecoder(), 0
    while True:
        i = text.find("{", i)
        if i < 0:
            return
        try:
            obj, i = decoder.raw_decode(text, i)
        except ValueError:
            return   # a truncated dump: what was read is checked
        yield obj

def annotate(node, state):
    """clang writes a location's file only when it changes: follow the dump in order. Sets _f/_o on each node."""
    def bare(loc):
        if "file" in loc:
            state["file"] = loc["file"]
        return state["file"], loc.get("offset")
    def where(loc):
        if not isinstance(loc, dict) or not loc:
            return None
        if "spellingLoc" in loc:
            bare(loc["spellingLoc"])
            return bare(loc["expansionLoc"])
        return bare(loc)
    if not isinstance(node, dict):
        return
    first = None
    if "loc" in node:
        first = where(node["loc"])
    if "range" in node:
        begin = where(node["range"].get("begin"))
        first = first or begin
        where(node["range"].get("end"))
    if first:
        node["_f"], node["_o"] = os.path.normpath(first[0]) if first[0] else None, first[1]
    for child in node.get("inner", []):
        annotate(child, state)

def strip(e):
    while isinstance(e, dict) and e.get("kind") in TRANSPARENT and e.get("inner"):
        if e.get("kind") == "ImplicitCastExpr" and e.get("castKind") == "ARCProduceObject":
            break
        e = e["inner"][0]
    return e

def strip_object(e):
    """Down to the object expression: also through casts between object types ((id)x) and property reads."""
    while isinstance(e, dict):
        k = e.get("kind")
        if k in TRANSPARENT or k == "CStyleCastExpr":
            e = e["inner"][0]
        elif k == "PseudoObjectExpr":
            e = e["inner"][-1]
        else:
            return e

def desugared(e):
    t = e.get("type", {})
    return t.get("desugaredQualType", t.get("qualType", ""))

def is_c_pointer(e):
    return re.match(r"^(const )?(volatile )?void \*", desugared(e)) is not None

def is_class(e):
    return re.match(r"^(__\w+ )*Class\b(?!\s*\*)", desugared(e)) is not None or desugared(e).startswith("Class ")

def callee(call):
    f = strip_object(call["inner"][0]) if call.get("inner") else None
    return f.get("referencedDecl", {}).get("name") if f and f.get("kind") == "DeclRefExpr" else None

class Function:
    def __init__(self, decl, findings):
        self.decl, self.findings, self.locals = decl, findings, {}
        self.name = decl.get("name", "?")
        self.escapes = 0

    def report(self, node, message):
        self.findings.add((node.get("_f") or self.decl.get("_f"), node.get("_o") or self.decl.get("_o"),
                           "%s: %s" % (self.name, message)))

    def collect(self, node):
        if not isinstance(node, dict):
            return
        if node.get("kind") == "VarDecl":
            init = node["inner"][0] if node.get("init") and node.get("inner") else None
            self.locals[node["id"]] = {"type": node.get("type", {}).get("qualType", ""),
                                       "static": node.get("storageClass") in ("static", "extern"), "init": init,
                                       "name": node.get("name")}
        for child in node.get("inner", []):
            self.collect(child)

    def made_here(self, e):
        """An object this function made: an alloc/init, new, copy or mutableCopy result, or a local holding one."""
        e = strip_object(e)
        if e.get("kind") == "ObjCMessageExpr":
            return FAMILY.match(e.get("selector", "")) is not None
        if e.get("kind") == "DeclRefExpr":
            local = self.locals.get(e.get("referencedDecl", {}).get("id"))
            return bool(local and local["init"] is not None and self.made_here(local["init"]))
        return False

    def classify(self, o):
        """None when the object may leave through a plain __bridge cast, else why not."""
        k = o.get("kind")
        if k in ("ObjCStringLiteral", "ObjCSelectorExpr", "ObjCProtocolExpr", "GNUNullExpr", "IntegerLiteral",
                 "CXXNullPtrLiteralExpr") or is_class(o):
            return None
        if k == "DeclRefExpr":
            ref = o.get("referencedDecl", {})
            if ref.get("kind") in ("ParmVarDecl", "ImplicitParamDecl"):
                return None                                   # borrowed from the caller
            local = self.locals.get(ref.get("id"))
            if local is None or local["static"]:
                return None                                   # a global or a static: it keeps the object
            if re.search(r"__(autoreleasing|unsafe_unretained|weak)\b", local["type"]):
                return None
            return ("strong local '%s' leaves through a __bridge cast: ARC releases it when its scope ends, MRC hands "
                    "it on (use a CSR_PASS_ macro)" % local["name"])
        if k == "ObjCMessageExpr":
            selector = o.get("selector", "?")
            if FAMILY.match(selector):
                return ("the +1 result of '%s' leaves through a __bridge cast: ARC releases it at the end of the "
                        "statement (use CSR_PASS_RETAINED_NEW or CSR_PASS_AUTORELEASED_NEW)" % selector)
            return ("the result of '%s' leaves through a __bridge cast: under ARC, objc4's optimized return can hand "
                    "it over at +1 and it is released at the end of the statement (CSR_PASS_AUTORELEASED for a new "
                    "object, CSR_PASS_BORROWED when another object keeps it)" % selector)
        if k == "CallExpr":
            return ("the object returned by %s() leaves through a __bridge cast (use a CSR_PASS_ macro)"
                    % (callee(o) or "a call"))
        return "an object expression (%s) leaves through a __bridge cast (use a CSR_PASS_ macro)" % k

    def check_leaving(self, e, how):
        e = strip(e)
        if not isinstance(e, dict):
            return
        k = e.get("kind")
        if k == "CStyleCastExpr":                          # (uintptr_t)(__bridge void *)x
            return self.check_leaving(e["inner"][0], how)
        if k in ("ConditionalOperator", "BinaryConditionalOperator"):
            for branch in e.get("inner", [])[1:]:
                self.check_leaving(branch, how)
            return
        if k != "ObjCBridgedCastExpr" or not is_c_pointer(e):
            return
        operand = e["inner"][0]
        if operand.get("kind") == "ImplicitCastExpr" and operand.get("castKind") == "ARCProduceObject":
            return                                         # __bridge_retained: an explicit +1
        self.escapes += 1
        # A class object, also one typed `id` and cast to Class (Apple's objc_getClass): classes are never freed.
        casts = strip(operand)
        while not is_class(casts) and casts.get("kind") == "CStyleCastExpr":
            casts = strip(casts["inner"][0])
        why = None if is_class(casts) else self.classify(strip_object(operand))
        if why:
            self.report(e, "%s (%s)" % (why, how))

    def escaping_store(self, lhs):
        """Whether a store to `lhs` outlives the function: through a parameter, into an ivar, a global or a static."""
        e, through = strip(lhs), False
        while isinstance(e, dict):
            k = e.get("kind")
            if k == "ObjCIvarRefExpr":
                return "an instance variable"
            if k == "MemberExpr":
                through = through or e.get("isArrow", False)
                e = strip(e["inner"][0])
            elif k == "UnaryOperator" and e.get("opcode") == "*":
                through, e = True, strip(e["inner"][0])
            elif k == "ArraySubscriptExpr":
                through, e = True, strip(e["inner"][0])
            elif k == "DeclRefExpr":
                ref = e.get("referencedDecl", {})
                if ref.get("kind") == "ParmVarDecl":
                    return "a parameter's memory" if through else None
                local = self.locals.get(ref.get("id"))
                if ref.get("kind") == "VarDecl" and (local is None or local["static"]):
                    return "a global or static variable"
                return None
            else:
                return None
        return None

    def check(self, node):
        if not isinstance(node, dict):
            return
        k = node.get("kind")
        if k == "ReturnStmt" and node.get("inner"):
            self.check_leaving(node["inner"][0], "returned")
        elif k == "BinaryOperator" and node.get("opcode") == "=":
            target = self.escaping_store(node["inner"][0])
            if target:
                self.check_leaving(node["inner"][1], "stored into " + target)
        elif k == "CallExpr":
            name = callee(node)
            arguments = node.get("inner", [])[1:]
            if name in PASS_NEW and arguments and not self.made_here(arguments[0]):
                self.report(node, "%s takes only an object made here (alloc/init, new, copy, mutableCopy) or a local "
                                  "holding one: under MRC it would hand out an object it does not own" % name)
            if name in PASS_OTHER and arguments:
                a = strip_object(arguments[0])
                if a.get("kind") == "ObjCMessageExpr" and FAMILY.match(a.get("selector", "")):
                    self.report(node, "%s is given the +1 result of '%s': under MRC that reference leaks (use the "
                                      "_NEW form)" % (name, a.get("selector")))
        for child in node.get("inner", []):
            if child.get("kind") not in ("FunctionDecl", "ObjCMethodDecl", "BlockDecl"):
                self.check(child)

def functions(node):
    if not isinstance(node, dict):
        return
    if node.get("kind") in ("FunctionDecl", "ObjCMethodDecl") and any(
            c.get("kind") == "CompoundStmt" for c in node.get("inner", [])):
        yield node
    for child in node.get("inner", []):
        yield from functions(child)

findings, seen, escapes = set(), set(), 0
for name in sorted(os.listdir(sys.argv[1])):
    state = {"file": None}
    for document in documents(os.path.join(sys.argv[1], name)):
        annotate(document, state)
        for decl in functions(document):
            path = decl.get("_f") or ""
            if not path.startswith(ROOTS):
                continue
            key = (name.split("-")[0], path, decl.get("_o"), decl.get("name"))
            if key in seen:
                continue
            seen.add(key)
            function = Function(decl, findings)
            function.collect(decl)
            function.check(decl)
            escapes += function.escapes

def line_of(path, offset):
    try:
        return open(path, errors="replace").read().count("\n", 0, offset or 0) + 1
    except OSError:
        return 0

for path, offset, message in sorted({(p, o, m) for p, o, m in findings}, key=lambda x: (x[0] or "", x[1] or 0, x[2])):
    print("%s:%d: error: %s [ownership]" % (path, line_of(path, offset), message))
print("ownership rule: %d function definitions, %d objects leaving through a __bridge cast, %d violations"
      % (len({k[1:] for k in seen}), escapes, len(findings)))
sys.exit(1 if findings else 0)
PYEOF
rule=$?
set -e
[ "$rule" -eq 0 ] || failures=$((failures + 1))
[ "$compile_errors" -eq 0 ] || failures=$((failures + 1))
[ "$analyzer_warnings" -eq 0 ] || failures=$((failures + 1))
configs="GNUstep headers"
[ -n "$sdk" ] && configs="$configs, $(basename "$sdk") ($target)"
echo "ownership check: ${#files[@]} files under ARC ($configs): $compile_errors -Werror diagnostics, $analyzer_warnings analyzer warnings, ownership rule $([ "$rule" -eq 0 ] && echo passed || echo failed)"
[ "$failures" -eq 0 ]
