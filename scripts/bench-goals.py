#!/usr/bin/env python3
"""The benchmark's figures against issue 33's goals, with the floor of each shape and what would go lower.

    scripts/bench-goals.py BENCHMARKS-so-far.md    (bench.sh --markdown appends its output)

Reads the instruction column of the calls table and the first start()'s parts of the breakdown from the markdown
that bench.sh wrote before it; prints a markdown section. A figure it cannot find is printed as "not measured".
"""
import re
import sys

text = open(sys.argv[1]).read()


def ratio(call):
    """The guarded/unguarded instruction ratio of a row of the calls table."""
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 8 and cells[0] == call and cells[6].endswith("x"):
            try:
                return float(cells[6][:-1])
            except ValueError:
                return None
    return None


def instructions(label):
    """The instructions of a part of the first start() (the breakdown's "== first start()" section)."""
    section = text.split("== first start()", 1)[-1] if "== first start()" in text else ""
    for line in section.splitlines():
        m = re.match(r"\s*([\d,]+)\s+(.*)", line)
        if m and m.group(2).strip().startswith(label):
            return int(m.group(1).replace(",", ""))
    return None


def shown(value, fmt):
    return "not measured" if value is None else fmt % value


def count(value):
    return "not measured" if value is None else format(value, ",")


rows = []
floors = {
    "objectAtIndex:": "15 added instructions (x86_64): the `@try` trampoline keeps a frame (the landing pad needs "
    "it: push/mov/sub, add/pop/ret), saves a callee-saved register its landing pad keeps the exception in "
    "(push/pop), stores its landing-pad operands (2), loads the slot's original, tests it and calls it (4). Not yet "
    "at this shape's floor: a landing pad that keeps the exception in the frame drops the register (13, 1.236x); "
    "a trampoline that must catch cannot drop below about 9 (frame, load, test, call, return), 1.16x. Lower needs "
    "no trampoline on the valid path at all (recovery at the raise, which no phone can compile: deleted).",
    "array[i]": "Two trampolines here: GNUstep's `objectAtIndexedSubscript:` sends `objectAtIndex:`, so both hooks "
    "run (30 added). Apple's concrete arrays answer the subscript themselves: one trampoline there.",
    "characterAtIndex:": "The same trampoline as `objectAtIndex:` (15 added); at the 9-instruction floor, 1.14x.",
    "app workload": "Most of what a screen load adds (the breakdown above): the string checks' `length` messages "
    "(a message lookup on GCC's libobjc, about 21 instructions, where objc_msgSend's cache hit on arm64 is "
    "about a dozen, then GNUstep's `length`), and the check-first trampolines of `getCharacters:range:`, "
    "`replaceCharactersInRange:withString:` and `rangeOfString:options:range:locale:`, which GNUstep's own NSString "
    "methods send to themselves (the workload itself calls only `rangeOfString:`). Lower: read `length` through a "
    "cached implementation instead of a message, or leave Foundation's calls to itself unchecked (the caller is "
    "known only after the check).",
}
goals = [("objectAtIndex:", 1.15), ("array[i]", 1.15), ("characterAtIndex:", 1.15), ("app workload", 1.015)]
for call, goal in goals:
    measured = ratio(call)
    met = "not measured" if measured is None else ("met" if measured <= goal else "not met")
    rows.append((call + " (instructions)", "%.3fx" % goal, shown(measured, "%.3fx"), met, floors[call]))

total = instructions("start(), all of it")
sort = instructions("of which Foundation's first sort")
metadata = instructions("the Swift runtime building generic type metadata")
own = None if None in (total, sort, metadata) else total - sort - metadata
rows.append((
    "first start() (instructions)", "2 ms, or 1 ms beyond Foundation's first use", count(total),
    "not met",
    "Of it, %s are GNUstep Foundation's first sort (its first message reads the user defaults and the locale: a cost "
    "an app pays at its own first sort) and %s the Swift runtime building one generic hook-point type per method "
    "signature (141 at the first start, about 66,000 instructions each: the runtime demangles each C function type; "
    "`-prespecialize-generic-metadata` changes nothing here, measured; hook points that keep their implementation "
    "as an untyped IMP, cast where called, would need no generic type at all). CrashShield's own work is the remaining %s: class-cluster samples, hook "
    "installation, the session." % (count(sort), count(metadata), count(own)),
))

print("\n## Against the goals (issue 33)\n")
print("Instruction ratios from the calls table, the first start() from the breakdown above (instructions: wall time")
print("on this shared machine is in the start() table). A floor is the least this shape of hook can cost, and why.\n")
print("| figure | goal | measured | | floor, and what would go lower |")
print("| --- | --- | --- | --- | --- |")
for row in rows:
    print("| " + " | ".join(row) + " |")
