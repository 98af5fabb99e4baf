#!/usr/bin/env python3
"""One path: how much of the library compiles for iOS, and where the rest lives.

Counts the lines of every library source file (Sources/: Swift, C, Objective-C, headers) and decides for each line
whether an iOS build compiles it, by evaluating the conditional-compilation blocks around it for iOS:

- C and Objective-C: `defined(__APPLE__)` and `__APPLE__` are true; `defined(GNUSTEP)`, `defined(__linux__)`,
  `defined(__gnu_linux__)`, `GNU_RUNTIME` and `CSR_UNWIND_AVAILABLE` are false; anything else (`__x86_64__`,
  `__has_feature(...)`, the project's own macros) may be either, and counts as compiled for iOS (the simulator is
  x86_64 or arm64, a device arm64 or arm64e).
- Swift: `os(Linux)`, `canImport(Glibc)`, `canImport(Musl)` are false; `canImport(Darwin)`, `canImport(ObjectiveC)`,
  `os(iOS)` and `os(macOS)`-style Apple platforms are true; anything else may be either.
- Every file under a `GNUstep/` folder is Linux-only by construction: those are the platform units. So is a Swift
  platform unit: a file in a `Platform/` folder named `*GNUstep.swift` (its Apple twin is `*Apple.swift`), the whole
  file inside one platform `#if` with no `#else`.

Fails unless (1) the share of lines that compile for iOS is at least --min (95% by default), (2) the files on the iOS
reading path, from a hook to the sink, contain no Linux-only line at all, and (3) no Swift file of the library
(Sources/CrashShield, CrashShieldNotifications, CrashShieldUpload, CrashShieldTesting) holds a platform `#if` (`canImport(Darwin)`,
`canImport(Glibc)`, `os(...)`...) but around import lines: a guard chooses between Apple's and GNUstep's Foundation at
run time (`FoundationRules`), and platform API lives in a platform unit (a `Platform/*Apple.swift` /
`*GNUstep.swift` pair, or the runtime layer's Apple/ and GNUstep/ units), beyond the blocks listed in
ALLOWED_GUARD_BLOCKS, each with its reason.

    scripts/check-one-path.py [--min 95] [--verbose] [--self-test]

--self-test also shows that (3) catches a platform block injected into a real guard file and a platform unit with an
`#else`, and lets an import block and a whole-file unit through.
"""
import argparse
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SOURCES = os.path.join(ROOT, "Sources")

# The files an iOS engineer reads from a hook to the sink: not one Linux-only line in them.
READING_PATH = [
    "CrashShield/Runtime/HookPoint.swift",
    "CrashShield/Runtime/HookEngine.swift",
    "CrashShield/Guards/GuardedMethod.swift",
    "CrashShield/Guards/GuardContext.swift",
    "CrashShield/Guards/HookPoints/HotReadHookPoint.swift",
    "CrashShield/Guards/IncidentChannel.swift",
    "CrashShield/Core/IncidentPath.swift",
    "CrashShield/Reporting/ReportPipeline.swift",
    "CrashShield/Reporting/ReportDelivery.swift",
    "CrashShieldRuntime/CSRHotReads.m",
    "CrashShieldRuntime/CSRCheckFirst.c",
    "CrashShieldRuntime/CSRHookTable.c",
    "CrashShieldRuntime/CSRIncident.c",
    "CrashShieldRuntime/include/CSRHotReads.h",
    "CrashShieldRuntime/include/CSRCheckFirst.h",
    "CrashShieldRuntime/include/CSRIncident.h",
]

# The Swift folders in which a platform `#if` may guard import lines only (their Platform/ units aside).
GUARD_FOLDERS = ["CrashShield/", "CrashShieldNotifications/", "CrashShieldUpload/", "CrashShieldTesting/"]

# Platform blocks still in a guard file, with their reason: file -> (how many, why).
ALLOWED_GUARD_BLOCKS: dict = {}

# A Swift condition that names a platform (`#if DEBUG`, `#if compiler(...)` do not).
SWIFT_PLATFORM = re.compile(r"canImport\(\s*(Darwin|Glibc|Musl|ObjectiveC|WinSDK)\s*\)|\bos\(|\btargetEnvironment\(")

C_TRUE = {"__APPLE__", "__OBJC__"}
C_FALSE = {"GNUSTEP", "__linux__", "__gnu_linux__", "GNU_RUNTIME", "CSR_UNWIND_AVAILABLE", "GNUSTEP_BASE_LIBRARY"}
SWIFT_FALSE = {"os(Linux)", "canImport(Glibc)", "canImport(Musl)", "os(Windows)", "os(Android)"}
SWIFT_TRUE = {"canImport(Darwin)", "canImport(ObjectiveC)", "os(iOS)", "canImport(UIKit)"}


class Maybe:
    """A condition whose value on iOS this script does not decide."""


MAYBE = Maybe()


def _and(a, b):
    if a is False or b is False:
        return False
    if a is True and b is True:
        return True
    return MAYBE


def _or(a, b):
    if a is True or b is True:
        return True
    if a is False and b is False:
        return False
    return MAYBE


def _not(a):
    return MAYBE if a is MAYBE else (not a)


def tokenize(expression, swift):
    pattern = (
        r"\s*(&&|\|\||!|\(|\)|[A-Za-z_][A-Za-z0-9_]*\([^()]*\)|[A-Za-z_][A-Za-z0-9_]*|[<>=!]=?|\d+|.)"
    )
    return [t for t in re.findall(pattern, expression) if t.strip()]


def evaluate(expression, swift):
    """True, False or MAYBE: the condition's value when compiling for iOS."""
    expression = re.sub(r"//.*|/\*.*?\*/", "", expression).strip()
    tokens = tokenize(expression, swift)
    position = 0

    def atom():
        nonlocal position
        if position >= len(tokens):
            return MAYBE
        token = tokens[position]
        position += 1
        if token == "!":
            return _not(atom())
        if token == "(":
            value = disjunction()
            if position < len(tokens) and tokens[position] == ")":
                position += 1
            return value
        if swift:
            if token in SWIFT_FALSE:
                return False
            if token in SWIFT_TRUE:
                return True
            return MAYBE
        name = token
        if token == "defined" and position < len(tokens) and tokens[position] == "(":
            name = tokens[position + 1]
            position += 3
        else:
            match = re.fullmatch(r"defined\(\s*(\w+)\s*\)", token)
            if match:
                name = match.group(1)
            elif token == "defined" and position < len(tokens):
                name = tokens[position]
                position += 1
        if name in C_TRUE:
            return True
        if name in C_FALSE:
            return False
        # A comparison or anything else undecided: skip an operator and its operand.
        while position < len(tokens) and re.fullmatch(r"[<>=!]=?|\d+", tokens[position]):
            position += 1
        return MAYBE

    def conjunction():
        nonlocal position
        value = atom()
        while position < len(tokens) and tokens[position] == "&&":
            position += 1
            value = _and(value, atom())
        return value

    def disjunction():
        nonlocal position
        value = conjunction()
        while position < len(tokens) and tokens[position] == "||":
            position += 1
            value = _or(value, conjunction())
        return value

    return disjunction()


def linux_only_lines(path):
    """The 1-based numbers of the lines an iOS build does not compile, and the file's line count."""
    swift = path.endswith(".swift")
    with open(path, encoding="utf-8", errors="replace") as handle:
        lines = handle.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    excluded = set()
    # Each open block: [value of the current branch, whether an earlier branch was taken (True/MAYBE)].
    stack = []
    directive = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|elseif|else|endif)\b(.*)$")
    for number, line in enumerate(lines, 1):
        match = directive.match(line)
        if match:
            kind, rest = match.group(1), match.group(2)
            if kind in ("if", "ifdef", "ifndef"):
                if kind == "ifdef":
                    rest = "defined(%s)" % rest.strip()
                elif kind == "ifndef":
                    rest = "!defined(%s)" % rest.strip()
                value = evaluate(rest, swift)
                stack.append([value, value])
            elif kind in ("elif", "elseif") and stack:
                taken = stack[-1][1]
                value = _and(_not(taken), evaluate(rest, swift))
                stack[-1] = [value, _or(taken, value)]
            elif kind == "else" and stack:
                taken = stack[-1][1]
                stack[-1] = [_not(taken), True]
            elif kind == "endif" and stack:
                stack.pop()
            continue
        if any(branch[0] is False for branch in stack):
            excluded.add(number)
    return excluded, len(lines)


def is_swift_unit(relative):
    """A Swift platform unit: `Platform/<Name>Apple.swift` or `Platform/<Name>GNUstep.swift`."""
    return ("/Platform/" in "/" + relative and relative.endswith(".swift")
            and (relative.endswith("Apple.swift") or relative.endswith("GNUstep.swift")))


def _code(line):
    """The line without its comment, stripped."""
    return re.sub(r"//.*", "", line).strip()


def guard_file_failures(relative, text):
    """Why a Swift file of the guards breaks rule (3): platform blocks around code, or a malformed platform unit."""
    lines = text.split("\n")
    directive = re.compile(r"^\s*#\s*(if|elseif|else|endif)\b(.*)$")
    if is_swift_unit(relative):
        code = [(n, _code(l)) for n, l in enumerate(lines, 1) if _code(l)]
        depth, problems = 0, []
        for index, (number, line) in enumerate(code):
            match = directive.match(line)
            if not match:
                if depth == 0:
                    problems.append("line %d outside the file's one platform #if" % number)
                continue
            kind, condition = match.group(1), match.group(2)
            if kind == "if":
                if depth == 0 and (index != 0 or not SWIFT_PLATFORM.search(condition)):
                    problems.append("line %d: a platform unit is one platform #if around the whole file" % number)
                depth += 1
            elif kind in ("else", "elseif") and depth == 1:
                problems.append("line %d: #%s in a platform unit (its twin is a file of its own)" % (number, kind))
            elif kind == "endif":
                depth -= 1
                if depth == 0 and index != len(code) - 1:
                    problems.append("line %d: the file goes on after its platform #if" % number)
        return ["%s: not a platform unit: %s" % (relative, problem) for problem in problems[:3]]
    blocks = []  # (first line, condition) of each platform block around more than import lines
    stack = []  # per open block: [first line, is platform, lines of code in it]
    for number, line in enumerate(lines, 1):
        match = directive.match(line)
        if match:
            kind, condition = match.group(1), match.group(2)
            if kind == "if":
                stack.append([number, bool(SWIFT_PLATFORM.search(condition)), [], condition.strip()])
            elif kind == "elseif" and stack:
                stack[-1][1] = stack[-1][1] or bool(SWIFT_PLATFORM.search(condition))
            elif kind == "endif" and stack:
                first, platform, code, condition = stack.pop()
                if platform and any(not re.match(r"^(@_exported\s+|@testable\s+)?import\s", c) for c in code):
                    blocks.append((first, condition))
                if stack:
                    stack[-1][2].extend(code)
            continue
        if stack and _code(line):
            stack[-1][2].append(_code(line))
    allowed, reason = ALLOWED_GUARD_BLOCKS.get(relative, (0, ""))
    if len(blocks) <= allowed:
        return []
    return ["%s: platform #if around code at line %s (choose by FoundationRules at run time, or move platform API "
            "into a Platform/*Apple.swift / *GNUstep.swift unit)" % (relative, ", ".join(str(b[0]) for b in blocks))]


def guard_failures():
    failures = []
    for path in library_files():
        relative = os.path.relpath(path, SOURCES)
        if is_swift_unit(relative) or (
                relative.endswith(".swift") and any(relative.startswith(folder) for folder in GUARD_FOLDERS)):
            with open(path, encoding="utf-8", errors="replace") as handle:
                failures += guard_file_failures(relative, handle.read())
    return failures


def self_test():
    """Each fault, made on a copy of a real guard file, must be caught; each allowed form must pass."""
    relative = "CrashShield/Guards/Containers/ArrayHooks.swift"
    with open(os.path.join(SOURCES, relative), encoding="utf-8") as handle:
        real = handle.read()
    position = real.index("\n    static func install")
    block = ("\n    #if canImport(Darwin)\n    static let rules = \"apple\"\n    #else\n"
             "    static let rules = \"gnustep\"\n    #endif\n")
    unit = "#if canImport(Darwin)\n// A platform unit.\nextension FoundationRules {}\n#endif\n"
    cases = [
        ("a platform block injected into %s" % relative, relative, real[:position] + block + real[position:], True),
        ("an os(Linux) block around code", relative, real + "\n#if os(Linux)\nlet x = 1\n#endif\n", True),
        ("a platform unit with #else", "CrashShield/Platform/RulesApple.swift",
         unit.replace("#endif", "#else\nextension FoundationRules {}\n#endif"), True),
        ("a platform unit with code outside its #if", "CrashShield/Platform/RulesGNUstep.swift",
         "import Atomics\n" + unit.replace("Darwin", "Glibc"), True),
        ("the real %s" % relative, relative, real, False),
        ("an import block", relative, "#if canImport(Glibc)\nimport Glibc\n#elseif canImport(Darwin)\nimport Darwin\n"
         "#endif\n" + real, False),
        ("a whole-file platform unit", "CrashShield/Platform/RulesApple.swift", unit, False),
        ("#if DEBUG around code", relative, real + "\n#if DEBUG\nlet x = 1\n#endif\n", False),
    ]
    wrong = 0
    for name, path, text, fails in cases:
        caught = guard_file_failures(path, text)
        good = bool(caught) == fails
        wrong += 0 if good else 1
        print("one path: self-test: %s: %s%s" % (
            name, ("caught: " + caught[0]) if caught else "passes", "" if good else "  <- WRONG"))
    return wrong


def library_files():
    for folder, _, names in os.walk(SOURCES):
        for name in sorted(names):
            if os.path.splitext(name)[1] in (".swift", ".c", ".m", ".h"):
                yield os.path.join(folder, name)


# MARK: Platform blocks in the runtime layer
#
# Where objc4 and GCC's libobjc need different code, the runtime layer (Sources/CrashShieldRuntime) keeps it in whole
# platform units, Apple/CSR<Name>Apple.* and GNUstep/CSR<Name>GNUstep.* (include/Apple/, include/GNUstep/ for headers),
# behind one interface; a file an iOS engineer reads outside them holds no `#if` that asks which platform or runtime
# it is. Allowed there: feature tests (`__has_feature(...)`, `__has_attribute(...)`, `__has_include(...)`), architecture
# tests (`__x86_64__`, `__aarch64__`, `__arm64__`, ...), the object format an assembler writes (`__MACH__`, `__ELF__`:
# its directives' syntax) and the language (`__OBJC__`, `__cplusplus`).

PLATFORM_MACROS = {"__APPLE__", "__linux__", "__gnu_linux__", "linux", "__unix__", "GNUSTEP", "GNUSTEP_BASE_LIBRARY",
                   "GNU_RUNTIME", "__GNUSTEP_RUNTIME__", "__OBJC2__", "CSR_UNWIND_AVAILABLE"}
PLATFORM_UNIT_FOLDERS = ("Apple", "GNUstep")
# For the share above: an object-format test's Mach-O branch is what iOS compiles, its ELF branch Linux-only.
C_TRUE.add("__MACH__")
C_FALSE.add("__ELF__")


def platform_conditions(text):
    """(line number, directive) of each #if / #elif / #ifdef / #ifndef in C `text` whose condition names a platform."""
    found = []
    lines = text.split("\n")
    number = 0
    while number < len(lines):
        start = number
        line = lines[number]
        while line.endswith("\\") and number + 1 < len(lines):   # a directive continued on the next line
            number += 1
            line = line[:-1] + " " + lines[number]
        number += 1
        match = re.match(r"^\s*#\s*(if|ifdef|ifndef|elif)\b(.*)$", line)
        if not match:
            continue
        condition = re.sub(r"//.*|/\*.*?\*/", "", match.group(2))
        if set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", condition)) & PLATFORM_MACROS:
            found.append((start + 1, line.strip()))
    return found


def is_platform_unit(relative):
    """Whether a path under Sources/CrashShieldRuntime lies in a platform unit's folder (Apple/, GNUstep/, any depth)."""
    return any(part in PLATFORM_UNIT_FOLDERS for part in relative.split(os.sep)[:-1])


def platform_block_self_test():
    """The detector on known cases: it must keep finding what it exists to find. Failures, or an empty list."""
    cases = [
        ("#if defined(__APPLE__)\n#include <dlfcn.h>\n#endif\n", [1]),
        ("int a;\n#ifdef GNUSTEP\n#endif\n", [2]),
        ("#if defined(__x86_64__)\n#elif defined(__linux__)\n#endif\n", [2]),
        ("#if !defined(__APPLE__) \\\n    && defined(__x86_64__)\n#endif\n", [1]),
        ("#  if defined (__APPLE__) && __has_feature(objc_arc)\n#endif\n", [1]),
        ("#ifndef GNU_RUNTIME\n#endif\n", [1]),
        ("#if __has_feature(ptrauth_calls)\n#elif defined(__aarch64__) || defined(__arm64__)\n#endif\n", []),
        ("#if defined(__MACH__)\n#else\n#endif\n#if defined(__OBJC__)\n#endif\n", []),
        ("#if __has_attribute(musttail) // not __APPLE__\n#endif\n", []),
        ("// #if defined(__APPLE__) in a comment\nint apple = __APPLE_CC__;\n", []),
    ]
    failures = []
    for text, expected in cases:
        got = [number for number, _ in platform_conditions(text)]
        if got != expected:
            failures.append("self-test: %r: platform conditions on lines %s, expected %s" % (text, got, expected))
    for relative, unit in [(os.path.join("Apple", "CSRZombieApple.m"), True),
                           (os.path.join("include", "GNUstep", "CSRRuntimeGNUstep.h"), True),
                           ("CSRZombie.m", False), (os.path.join("include", "CSRRuntime.h"), False)]:
        if is_platform_unit(relative) != unit:
            failures.append("self-test: %s: %s a platform unit" % (relative, "not" if unit else "wrongly"))
    return failures


def runtime_platform_block_failures():
    """A failure for each platform condition in a runtime-layer file outside the platform units."""
    failures = ["runtime platform blocks: " + failure for failure in platform_block_self_test()]
    runtime = os.path.join(SOURCES, "CrashShieldRuntime")
    for folder, _, names in os.walk(runtime):
        for name in sorted(names):
            if os.path.splitext(name)[1] not in (".c", ".m", ".h"):
                continue
            path = os.path.join(folder, name)
            relative = os.path.relpath(path, runtime)
            if is_platform_unit(relative):
                continue
            with open(path, encoding="utf-8", errors="replace") as handle:
                for number, directive in platform_conditions(handle.read()):
                    failures.append("CrashShieldRuntime/%s:%d: `%s` asks the platform in a shared file: move that code "
                                    "into its platform units (Apple/, GNUstep/) behind one interface"
                                    % (relative, number, directive))
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--min", type=float, default=95.0, help="the least share (%%) of lines compiled for iOS")
    parser.add_argument("--verbose", action="store_true", help="list every file with Linux-only lines")
    parser.add_argument("--self-test", action="store_true", help="also show that a platform block in a guard fails")
    arguments = parser.parse_args()

    total = linux = 0
    runtime_total = runtime_linux = 0   # the runtime layer's share of the same counts
    units = []
    inline = []
    for path in library_files():
        relative = os.path.relpath(path, SOURCES)
        excluded, count = linux_only_lines(path)
        unit = "/GNUstep/" in "/" + relative or (is_swift_unit(relative) and relative.endswith("GNUstep.swift"))
        linux_lines = count if unit else len(excluded)
        total += count
        linux += linux_lines
        if relative.startswith("CrashShieldRuntime/"):
            runtime_total += count
            runtime_linux += linux_lines
        if unit:
            units.append((relative, count))
        elif excluded:
            inline.append((relative, len(excluded), sorted(excluded)))

    share = 100.0 * (total - linux) / total if total else 100.0
    failures = []
    failures += runtime_platform_block_failures()   # "Platform blocks in the runtime layer" above
    if share < arguments.min:
        failures.append("only %.1f%% of the library's lines compile for iOS (at least %.1f%% required)"
                        % (share, arguments.min))
    for relative in READING_PATH:
        path = os.path.join(SOURCES, relative)
        if not os.path.exists(path):
            failures.append("%s: on the reading path but missing (update READING_PATH)" % relative)
            continue
        excluded, _ = linux_only_lines(path)
        if excluded:
            failures.append("%s: on the iOS reading path, with Linux-only lines %s"
                            % (relative, ", ".join(map(str, sorted(excluded)[:8]))))

    failures += guard_failures()
    if arguments.self_test and self_test():
        failures.append("self-test: a fault went uncaught, or an allowed form failed")

    unit_lines = sum(count for _, count in units)
    inline_lines = sum(count for _, count, _ in inline)
    print("one path: %d of %d library lines compile for iOS (%.1f%%); Linux-only: %d in %d platform units under "
          "GNUstep/ and Platform/, %d in %d shared files" % (total - linux, total, share, unit_lines, len(units), inline_lines,
                                               len(inline)))
    print("one path: the runtime layer (Sources/CrashShieldRuntime): %d of %d lines compile for iOS (%.1f%%)"
          % (runtime_total - runtime_linux, runtime_total, 100.0 * (runtime_total - runtime_linux) / runtime_total))
    if arguments.verbose:
        for relative, count in units:
            print("  unit   %5d  %s" % (count, relative))
        for relative, count, numbers in sorted(inline, key=lambda row: -row[1]):
            print("  inline %5d  %s (%s%s)" % (count, relative, ", ".join(map(str, numbers[:6])),
                                                 ", ..." if len(numbers) > 6 else ""))
    for failure in failures:
        print("one path: " + failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
