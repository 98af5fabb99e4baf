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
- Every file under a `GNUstep/` folder is Linux-only by construction: those are the platform units.

Fails unless (1) the share of lines that compile for iOS is at least --min (95% by default), (2) no Linux-only code
sits outside a `GNUstep/` platform unit beyond the blocks listed in ALLOWED below, each with its reason, and (3) the
files on the iOS reading path, from a hook to the sink, contain no Linux-only line at all.

    scripts/check-one-path.py [--min 95] [--verbose]
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


def library_files():
    for folder, _, names in os.walk(SOURCES):
        for name in sorted(names):
            if os.path.splitext(name)[1] in (".swift", ".c", ".m", ".h"):
                yield os.path.join(folder, name)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--min", type=float, default=95.0, help="the least share (%%) of lines compiled for iOS")
    parser.add_argument("--verbose", action="store_true", help="list every file with Linux-only lines")
    arguments = parser.parse_args()

    total = linux = 0
    runtime_total = runtime_linux = 0   # the runtime layer's share of the same counts
    units = []
    inline = []
    for path in library_files():
        relative = os.path.relpath(path, SOURCES)
        excluded, count = linux_only_lines(path)
        unit = "/GNUstep/" in "/" + relative
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

    unit_lines = sum(count for _, count in units)
    inline_lines = sum(count for _, count, _ in inline)
    print("one path: %d of %d library lines compile for iOS (%.1f%%); Linux-only: %d in %d platform units under "
          "GNUstep/, %d in %d shared files" % (total - linux, total, share, unit_lines, len(units), inline_lines,
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
