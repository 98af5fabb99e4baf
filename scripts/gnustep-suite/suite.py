#!/usr/bin/env python3
"""GNUstep Base's own test suite with CrashShield inside: build, run plain / release / debug, compare.

Called by scripts/gnustep-suite.sh, which fetches the sources, builds libCrashShieldDynamic.so and the main() shim.

Each test program is compiled once to an object file and linked twice: `<name>.plain` exactly as gnustep-tests links
it (no CrashShield at all) and `<name>.shield` with wrap_main.o (-Wl,--wrap=main) and the library, run with
CRASHSHIELD_SUITE_MODE=release or debug. Plain runs twice: results that differ between the two are unstable and
excluded. Every other difference from plain is unexpected, except in release mode a PASS_EXCEPTION that passed plain
and fails because CrashShield stopped the raise, with a report whose caller frame symbolicates to that test.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

DEFAULT_FOLDERS = (
    "NSArray NSMutableArray NSDictionary NSMutableDictionary NSSet NSMutableSet NSOrderedSet NSString "
    "NSMutableString NSAttributedString NSMutableAttributedString KVC NSNotification NSObject NSRunLoop NSData "
    "NSMutableData NSCache NSUserDefaults NSProxy NSInvocation NSMethodSignature NSOperation NSThread"
).split()
RUNS = ("plain", "plain2", "release", "debug")  # plain2: the second plain run, for flakiness
RESULT_PREFIXES = {
    "Passed test:": ("test", "pass"),
    "Failed test:": ("test", "fail"),
    "Dashed hope:": ("test", "dashed"),
    "Start set:": ("start", "started"),
    "End set:": ("end", "ended"),
    "Failed set:": ("set", "failed"),
    "Skipped set:": ("skip", "skipped"),
}
PREFIX_RE = re.compile(r"^(Passed test:|Failed test:|Dashed hope:|Start set:|End set:|Failed set:|Skipped set:)\s*(.*)$")
LOCATION_RE = re.compile(r"^\s*(\S+?:\d+) \.\.\. ")
EXCEPTION_MACROS = ("PASS_EXCEPTION",)


def log(*parts):
    print(*parts, flush=True)


def sh(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace", **kw)


# ---------------------------------------------------------------------------------------------------------- discovery

def parse_makefile_vars(path):
    """The simple `VAR = value` / `VAR += value` lines of a GNUmakefile.preamble (conditionals are taken as false,
    includes are ignored: the base tests' only conditional links libdispatch, which GNUstep here is built without)."""
    values, depth, ignored = {}, 0, []
    if not os.path.exists(path):
        return values, ignored
    for raw in open(path, encoding="utf-8", errors="replace"):
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        word = line.split()[0]
        if word in ("ifeq", "ifneq", "ifdef", "ifndef"):
            depth += 1
            ignored.append(line.strip())
            continue
        if word == "endif":
            depth -= 1
            continue
        if depth > 0 or word in ("include", "-include", "else") or line.startswith("\t"):
            if depth > 0:
                ignored.append(line.strip())
            continue
        m = re.match(r"^\s*([^\s+:=]+)\s*(\+?=|:=)\s*(.*)$", line)
        if m:
            name, op, value = m.groups()
            values[name] = (values.get(name, "") + " " + value).strip() if op == "+=" else value.strip()
    return values, ignored


class Program:
    def __init__(self, folder, name, source):
        self.folder, self.name, self.source = folder, name, source
        self.key = f"{folder}/{source}"
        self.extra_sources = []   # absolute paths
        self.cflags, self.ldflags = [], []
        self.obj = self.plain_bin = self.shield_bin = None
        self.build_error = None


def discover(base, folders, work):
    """Programs per folder, as gnustep-tests finds them: every *.m and *.c of the folder whose name does not start
    with X; GNUmakefile.preamble adds flags, libraries, extra sources (<test>_OBJC_FILES, which are then helpers,
    not tests) and subprojects (linked into every test of the folder) or bundles (built with gnustep-make)."""
    programs, notes, bundles = [], [], []
    for folder in folders:
        d = os.path.join(base, folder)
        if not os.path.isdir(d):
            notes.append(f"skipped: {folder} is absent in this gnustep-base")
            continue
        values, ignored = parse_makefile_vars(os.path.join(d, "GNUmakefile.preamble"))
        for line in ignored:
            notes.append(f"{folder}: GNUmakefile.preamble conditional not applied: {line}")
        files = sorted(f for f in os.listdir(d) if os.path.isfile(os.path.join(d, f)) and not f.startswith("X"))
        for f in files:
            if f.endswith((".mm", ".cc")):
                notes.append(f"skipped: {folder}/{f} (Objective-C++/C++: gnustep-tests builds it only with GNUSTEP_TEST_OBJCXX=yes)")
        sources = [f for f in files if f.endswith((".m", ".c"))]
        helpers = set()
        for s in sources:
            stem = s.rsplit(".", 1)[0]
            for extra in (values.get(f"{stem}_OBJC_FILES", "") + " " + values.get(f"{stem}_C_FILES", "")).split():
                if extra != s:
                    helpers.add(extra)
        for h in sorted(helpers):
            notes.append(f"{folder}/{h}: helper source (listed in GNUmakefile.preamble), not a test")
        common_c = (values.get("ADDITIONAL_INCLUDE_DIRS", "") + " " + values.get("ADDITIONAL_OBJCFLAGS", "") + " " +
                    values.get("ADDITIONAL_CPPFLAGS", "")).split()
        common_l = (values.get("ADDITIONAL_LIB_DIRS", "") + " " + values.get("ADDITIONAL_LDFLAGS", "") + " " +
                    values.get("ADDITIONAL_TOOL_LIBS", "")).split()
        # Subprojects: $(GNUSTEP_INSTANCE)_SUBPROJECTS are linked into each test; bundles are built in place.
        linked = values.get("$(GNUSTEP_INSTANCE)_SUBPROJECTS", "").split()
        common_extra = []
        for sub in values.get("SUBPROJECTS", "").split() + [s for s in linked if s not in values.get("SUBPROJECTS", "").split()]:
            sd = os.path.normpath(os.path.join(d, sub))
            sv, _ = parse_makefile_vars(os.path.join(sd, "GNUmakefile"))
            if "BUNDLE_NAME" in sv:
                bundles.append(sd)
            elif "SUBPROJECT_NAME" in sv and sub in linked:
                name = sv["SUBPROJECT_NAME"]
                common_extra += [os.path.join(sd, x) for x in sv.get(f"{name}_OBJC_FILES", "").split()]
        for s in sources:
            if s in helpers:
                continue
            stem = s.rsplit(".", 1)[0]
            p = Program(folder, stem, s)
            p.cflags = common_c
            p.ldflags = (values.get(f"{stem}_LIB_DIRS", "") + " " + values.get(f"{stem}_LDFLAGS", "")).split() + \
                common_l + values.get(f"{stem}_TOOL_LIBS", "").split()
            p.extra_sources = common_extra + [os.path.join(d, x) for x in
                                              (values.get(f"{stem}_OBJC_FILES", "") + " " + values.get(f"{stem}_C_FILES", "")).split() if x != s]
            p.obj = os.path.join(work, "obj", folder, stem + ".o")
            p.plain_bin = os.path.join(work, "bin", folder, stem + ".plain")
            p.shield_bin = os.path.join(work, "bin", folder, stem + ".shield")   # see main(): --blocks-runtime-first
            programs.append(p)
    return programs, notes, sorted(set(bundles))


# -------------------------------------------------------------------------------------------------------------- build

def up_to_date(target, inputs, stamp_text):
    stamp = target + ".cmd"
    if not os.path.exists(target) or not os.path.exists(stamp) or open(stamp).read() != stamp_text:
        return False
    t = os.path.getmtime(target)
    return all(os.path.getmtime(i) <= t for i in inputs if os.path.exists(i))


def run_build_step(cmd, cwd, target, inputs):
    text = shlex.join(cmd)
    if up_to_date(target, inputs, text):
        return None
    os.makedirs(os.path.dirname(target), exist_ok=True)
    r = sh(cmd, cwd=cwd)
    if r.returncode != 0:
        return f"$ (cd {cwd} && {text})\n{r.stdout[-4000:]}"
    with open(target + ".cmd", "w") as f:
        f.write(text)
    return None


def build_program(p, base, cfg):
    """Compile once (from the test's folder: __FILE__ is the bare file name, as under gnustep-tests), link twice."""
    d = os.path.join(base, p.folder)
    objs = [p.obj]
    compile_cmd = [cfg.cc, "-c", p.source, "-o", p.obj] + cfg.objc_flags + ["-I" + cfg.testframework, "-g"] + p.cflags
    err = run_build_step(compile_cmd, d, p.obj, [os.path.join(d, p.source)])
    for extra in p.extra_sources:
        o = os.path.join(os.path.dirname(p.obj), "extra", os.path.relpath(extra, base).replace("/", "_") + ".o")
        err = err or run_build_step([cfg.cc, "-c", extra, "-o", o] + cfg.objc_flags + ["-I" + cfg.testframework, "-g"] +
                                    p.cflags, os.path.dirname(extra), o, [extra])
        objs.append(o)
    if err:
        return err
    link_plain = [cfg.cc, "-o", p.plain_bin] + objs + p.ldflags + cfg.base_libs
    # As a GNUstep program links a library (gnustep-make puts the program's libraries before gnustep-base's);
    # --blocks-runtime-first also makes the toolchain's libBlocksRuntime a direct dependency ahead of gnustep-base.
    first = []
    if cfg.blocks_runtime_first:
        first = ["-L" + cfg.swift_lib_dir, "-Wl,--push-state,--no-as-needed", "-lBlocksRuntime", "-Wl,--pop-state",
                 "-Wl,-rpath," + cfg.swift_lib_dir]
    link_shield = [cfg.cc, "-o", p.shield_bin] + objs + [cfg.shim, "-Wl,--wrap=main"] + first + p.ldflags + \
        ["-L" + cfg.lib_dir, "-l" + cfg.lib_name, "-Wl,-rpath," + cfg.lib_dir] + cfg.base_libs
    return run_build_step(link_plain, d, p.plain_bin, objs) or \
        run_build_step(link_shield, d, p.shield_bin, objs + [cfg.shim, os.path.join(cfg.lib_dir, f"lib{cfg.lib_name}.so")])


def block_runtime_provider(binary):
    """The library whose _Block_copy every other library of `binary` binds to: the first in load order (ldd lists
    the global lookup scope breadth-first) that defines it."""
    for line in sh(["ldd", binary]).stdout.split("\n"):
        m = re.search(r"=> (\S+) \(0x", line)
        if not m:
            continue
        symbols = sh(["nm", "-D", "--defined-only", m.group(1)]).stdout
        if re.search(r" T _Block_copy$", symbols, re.M):
            return m.group(1)
    return None


# ---------------------------------------------------------------------------------------------------------------- run

def parse_results(stderr_text):
    """Testing.h's result lines, keyed (kind, file:line, occurrence of that kind at that file:line) -> result.
    A line another thread's output split (a log line written between Testing.h's fprintf calls) is rejoined with
    the next line that carries the location."""
    lines = stderr_text.split("\n")
    results, order, counts, open_sets, repaired = {}, [], {}, [], 0
    i = 0
    while i < len(lines):
        m = PREFIX_RE.match(lines[i])
        i += 1
        if not m:
            continue
        prefix, rest = m.groups()
        kind, result = RESULT_PREFIXES[prefix]
        if kind == "skip":
            loc = open_sets[-1] if open_sets else "?"   # "Skipped set: <reason>" names no location: its set's
        else:
            lm = LOCATION_RE.match(rest)
            if not lm:
                for j in range(i, min(i + 40, len(lines))):
                    lm2 = LOCATION_RE.match(lines[j])
                    if lm2 and not PREFIX_RE.match(lines[j]):
                        lm, repaired, i = lm2, repaired + 1, j + 1
                        break
            if not lm:
                loc = "unfinished-line"   # the process died while Testing.h was printing it
            else:
                loc = lm.group(1)
        if kind == "start":
            open_sets.append(loc)
        elif kind == "end" and open_sets:
            open_sets.pop()
        n = counts.get((kind, loc), 0)
        counts[(kind, loc)] = n + 1
        key = f"{kind}|{loc}|{n}"
        results[key] = result
        order.append(key)
    return results, order, repaired


def describe_status(rc, hung):
    if hung:
        return "hang"
    if rc < 0:
        try:
            return "signal " + signal.Signals(-rc).name
        except ValueError:
            return f"signal {-rc}"
    return f"exit {rc}"


def run_one(p, run, base, cfg):
    """One program in one mode, from its own folder, with a fresh HOME and GNUstep user root."""
    mode = "plain" if run.startswith("plain") else run
    logdir = os.path.join(cfg.work, cfg.logs, run, p.folder)
    os.makedirs(logdir, exist_ok=True)
    out_path, err_path = os.path.join(logdir, p.name + ".stdout"), os.path.join(logdir, p.name + ".stderr")
    reports_path = os.path.join(logdir, p.name + ".reports.jsonl")
    if os.path.exists(reports_path):
        os.unlink(reports_path)
    home = tempfile.mkdtemp(prefix="gs-home-", dir=cfg.tmp)
    env = dict(os.environ)
    for k in ("CRASHSHIELD_SUITE_MODE", "CRASHSHIELD_SUITE_REPORTS"):
        env.pop(k, None)
    env.update({
        "HOME": home, "GNUSTEP_USER_ROOT": os.path.join(home, "GNUstep"), "TMPDIR": home,
        # as gnustep-tests runs every test
        "MALLOC_CHECK_": "2", "NSZombieEnabled": "YES", "CRASH_ON_ZOMBIE": "YES",
        "LC_ALL": "C.UTF-8",
    })
    binary = p.plain_bin
    if mode != "plain":
        binary = p.shield_bin
        env.update({"CRASHSHIELD_SUITE_MODE": mode, "CRASHSHIELD_SUITE_REPORTS": reports_path})
    start = time.monotonic()
    hung, backtrace = False, None
    with open(out_path, "w") as out, open(err_path, "w") as err:
        proc = subprocess.Popen([binary], cwd=os.path.join(base, p.folder), env=env, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=err, start_new_session=True)
        try:
            rc = proc.wait(timeout=cfg.timeout)
        except subprocess.TimeoutExpired:
            hung = True
            if cfg.gdb:
                bt = sh(["timeout", "60", cfg.gdb, "-p", str(proc.pid), "-batch", "-ex", "thread apply all bt 40"])
                backtrace = os.path.join(logdir, p.name + ".hang-backtrace.txt")
                with open(backtrace, "w") as f:
                    f.write(bt.stdout)
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            rc = proc.wait()
    duration = time.monotonic() - start
    shutil.rmtree(home, ignore_errors=True)
    text = open(err_path, encoding="utf-8", errors="replace").read()
    results, order, repaired = parse_results(text)
    reports = []
    if os.path.exists(reports_path):
        for line in open(reports_path, encoding="utf-8", errors="replace"):
            line = line.strip()
            if line:
                try:
                    reports.append(json.loads(line))
                except json.JSONDecodeError:
                    reports.append({"unparsable": line[:200]})
    return {
        "program": p.key, "run": run, "binary": binary, "status": describe_status(rc, hung), "returncode": rc,
        "hung": hung, "seconds": round(duration, 3), "results": results, "order": order, "repaired_lines": repaired,
        "reports": reports, "stderr": err_path, "hang_backtrace": backtrace, "crash_excerpt": crash_excerpt(text),
    }


def crash_excerpt(text):
    """Last words: fatal messages, and the crashed thread's first frames from Swift's backtracer."""
    lines = text.split("\n")
    out = [l for l in lines if re.search(r"stack smashing|double free|corrupted|free\(\)|Fatal error|Assertion|"
                                         r"^\*\*\* Program crashed|zombie|uncaught exception", l, re.I)][:3]
    for i, line in enumerate(lines):
        if re.match(r"^Thread \d+ .*crashed:", line):
            out.append(line)
            frames = []
            for l in lines[i + 1:i + 20]:
                if not l.strip() or l.startswith(("Registers:", "Thread ")):
                    break
                if l.strip() != "...":
                    frames.append(l.rstrip())
            out += frames[:6]
            break
    return out


# ------------------------------------------------------------------------------------------------------------ compare

class Symbolicator:
    def __init__(self, addr2line):
        self.addr2line, self.cache = addr2line, {}

    def locations(self, binary, offset):
        """file:line of each (inlined) frame at `offset` in `binary`, innermost first."""
        key = (binary, offset)
        if key not in self.cache:
            r = sh([self.addr2line, "-e", binary, "-i", hex(offset)])
            locs = []
            for line in r.stdout.split("\n"):
                line = re.sub(r"\s*\(discriminator \d+\)", "", line.strip())
                m = re.match(r"^(.*):(\d+)$", line)
                if m and m.group(1) != "??":
                    locs.append((os.path.basename(m.group(1)), int(m.group(2))))
            self.cache[key] = locs
        return self.cache[key]


def report_call_sites(report, binary, sym):
    """file:line of the report's caller frame when it lies in the test executable (PIE: offset = address - base)."""
    stack, index = report.get("callStack") or [], report.get("callerFrameIndex")
    if index is None or not (0 <= index < len(stack)):
        return []
    frame = stack[index]
    if os.path.realpath(frame.get("image", "")) != os.path.realpath(binary) and \
            os.path.basename(frame.get("image", "")) != os.path.basename(binary):
        return []
    offset = int(frame["address"]) - int(frame["imageBase"])
    return sym.locations(binary, offset - 1 if offset > 0 else offset)   # a return address: the call is before it


_macro_cache = {}


def exception_macro_span(path, line):
    """(first, last) source lines of the PASS_EXCEPTION(...) invocation the test reported at `line` belongs to,
    or None when that line's test is not a PASS_EXCEPTION. GCC reports a macro spanning lines at its last line."""
    if path not in _macro_cache:
        try:
            _macro_cache[path] = open(path, encoding="utf-8", errors="replace").read().split("\n")
        except OSError:
            _macro_cache[path] = None
    src = _macro_cache[path]
    if not src or line < 1 or line > len(src):
        return None
    for first in range(line, max(0, line - 40), -1):
        text = src[first - 1]
        for macro in EXCEPTION_MACROS:
            pos = text.find(macro + "(")
            if pos < 0 or re.match(r"\s*#\s*define", text):
                continue
            # Balance parentheses from the macro's "(" to find the invocation's last line.
            depth, last = 0, None
            for ln in range(first, min(len(src), first + 60) + 1):
                segment = src[ln - 1][pos:] if ln == first else src[ln - 1]
                for ch in segment:
                    depth += ch == "("
                    depth -= ch == ")"
                    if depth == 0 and ch == ")":
                        last = ln
                        break
                if last:
                    break
            if last and first <= line <= last:
                return (first, last)
            if last and last < line:
                return None
    return None


def compare(p, base, runs, sym, unstable_keys, include_dirs):
    """Differences of the release and debug runs from plain, each classified allowed or unexpected."""
    plain = runs["plain"]
    out = {}
    for mode in ("release", "debug"):
        r = runs[mode]
        diffs = []
        if r["status"] != plain["status"]:
            diffs.append({"kind": "status", "plain": plain["status"], "mode": r["status"], "allowed": False,
                          "why": r["crash_excerpt"]})
        sites = None
        for key in plain["order"] + [k for k in r["order"] if k not in plain["results"]]:
            if key in unstable_keys:
                continue
            a, b = plain["results"].get(key), r["results"].get(key)
            if a == b:
                continue
            kind, loc, occ = key.split("|")
            d = {"kind": "result", "key": key, "location": loc, "occurrence": int(occ), "plain": a or "missing",
                 "mode": b or "missing", "allowed": False}
            if mode == "release" and kind == "test" and a == "pass" and b == "fail" and ":" in loc:
                file, line = loc.rsplit(":", 1)
                path = next((os.path.join(d, file) for d in [os.path.join(base, p.folder)] + include_dirs
                             if os.path.exists(os.path.join(d, file))), file)
                span = exception_macro_span(path, int(line))
                if span is None:
                    d["why"] = "not a PASS_EXCEPTION"
                else:
                    if sites is None:
                        sites = [(rep, report_call_sites(rep, r["binary"], sym)) for rep in r["reports"]]
                    hits = [rep for rep, locs in sites
                            if any(f == os.path.basename(file) and span[0] <= l <= span[1] for f, l in locs)]
                    if hits:
                        d["allowed"] = True
                        d["report"] = f"{hits[0].get('className')} {hits[0].get('selector')}: {hits[0].get('exceptionName')}"
                    else:
                        d["why"] = "PASS_EXCEPTION no longer raised, and no report's call site is " + \
                            (f"{file}:{span[0]}-{span[1]}" if span[0] != span[1] else loc)
            diffs.append(d)
        out[mode] = diffs
    return out


# --------------------------------------------------------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True, help="gnustep-base's Tests/base folder")
    ap.add_argument("--work", required=True)
    ap.add_argument("--lib-dir", required=True)
    ap.add_argument("--lib-name", default="CrashShieldDynamic")
    ap.add_argument("--shim", required=True, help="wrap_main.o")
    ap.add_argument("--folders", default=" ".join(DEFAULT_FOLDERS))
    ap.add_argument("--programs", default="", help="only these Folder/file.m (space separated)")
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--results", required=True, help="machine-readable results (JSON)")
    ap.add_argument("--version", default="?", help="gnustep-base version, for the output")
    ap.add_argument("--blocks-runtime-first", action="store_true",
                    help="link the toolchain's libBlocksRuntime ahead of gnustep-base (which exports its own _Block_copy)")
    cfg = ap.parse_args()
    base = os.path.abspath(cfg.src)
    cfg.work = os.path.abspath(cfg.work)
    cfg.lib_dir = os.path.abspath(cfg.lib_dir)
    cfg.shim = os.path.abspath(cfg.shim)
    cfg.cc = subprocess.run(["gnustep-config", "--variable=CC"], capture_output=True, text=True).stdout.strip() or "gcc"
    flags = subprocess.run(["gnustep-config", "--objc-flags"], capture_output=True, text=True, check=True).stdout.split()
    cfg.objc_flags = [f for f in flags if f not in ("-MMD", "-MP")]   # no .d files in the source folders
    cfg.base_libs = subprocess.run(["gnustep-config", "--base-libs"], capture_output=True, text=True, check=True).stdout.split()
    makefiles = subprocess.run(["gnustep-config", "--variable=GNUSTEP_MAKEFILES"], capture_output=True, text=True).stdout.strip()
    cfg.testframework = os.path.join(makefiles, "TestFramework")
    cfg.gdb = shutil.which("gdb")
    addr2line = shutil.which("addr2line")
    if not addr2line:
        sys.exit("addr2line (binutils) is needed to symbolicate reports")
    os.makedirs(cfg.work, exist_ok=True)
    cfg.tmp = tempfile.mkdtemp(prefix="tmp-", dir=cfg.work)
    cfg.swift_lib_dir = None
    if cfg.blocks_runtime_first:
        ldd = sh(["ldd", os.path.join(cfg.lib_dir, f"lib{cfg.lib_name}.so")]).stdout
        m = re.search(r"libBlocksRuntime\.so => (\S+)", ldd)
        if not m:
            sys.exit("--blocks-runtime-first: libBlocksRuntime.so not found in ldd of the library")
        cfg.swift_lib_dir = os.path.dirname(m.group(1))

    folders = cfg.folders.split()
    programs, notes, bundles = discover(base, folders, cfg.work)
    cfg.logs = "logs-blocks-first" if cfg.blocks_runtime_first else "logs"
    if cfg.blocks_runtime_first:
        for p in programs:
            p.shield_bin += "-blocks-first"
    if cfg.programs:
        wanted = set(cfg.programs.split())
        programs = [p for p in programs if p.key in wanted]
    for n in notes:
        log(n)
    log(f"gnustep suite: gnustep-base {cfg.version}, {len(programs)} programs in {len(folders)} folders; "
        f"{cfg.jobs} jobs, timeout {cfg.timeout:g} s")

    # Build: bundles the tests load (gnustep-make), then every program (compile once, link plain and shielded).
    t0 = time.monotonic()
    for b in bundles:
        r = sh(["make", "-s", "GNUSTEP_MAKEFILES=" + makefiles], cwd=b)
        if r.returncode != 0:
            log(f"build failed: bundle {os.path.relpath(b, base)}\n{r.stdout[-2000:]}")
    with concurrent.futures.ThreadPoolExecutor(cfg.jobs) as pool:
        errors = dict(zip([p.key for p in programs], pool.map(lambda p: build_program(p, base, cfg), programs)))
    build_seconds = time.monotonic() - t0
    failed_builds = [k for k, e in errors.items() if e]
    for k in failed_builds:
        log(f"build failed: {k}\n{errors[k]}")
    built = [p for p in programs if not errors[p.key]]
    if built:
        provider = block_runtime_provider(built[0].shield_bin)
        notes.append(f"_Block_copy in the shielded programs: {provider or 'not found'}")
        log(notes[-1] + ("" if provider is None or "BlocksRuntime" in provider else
                         " (gnustep-base's own block runtime, which Swift's Dispatch then uses too;"
                         " --blocks-runtime-first links libBlocksRuntime ahead of it)"))
    log(f"build: {len(built)} programs compiled once, linked plain and shielded, in {build_seconds:.1f} s")

    # Run: one phase per mode (per-mode timings); within a phase folders run in parallel, the programs of one
    # folder one after the other (tests write files next to them, as under gnustep-tests).
    by_folder = {}
    for p in built:
        by_folder.setdefault(p.folder, []).append(p)
    runs = {p.key: {} for p in built}
    phase_seconds = {}
    for run in RUNS:
        t0 = time.monotonic()

        def folder_job(ps, run=run):
            return [run_one(p, run, base, cfg) for p in ps]

        with concurrent.futures.ThreadPoolExecutor(cfg.jobs) as pool:
            for results in pool.map(folder_job, by_folder.values()):
                for r in results:
                    runs[r["program"]][run] = r
        phase_seconds[run] = time.monotonic() - t0
        log(f"run {run}: {phase_seconds[run]:.1f} s")
    shutil.rmtree(cfg.tmp, ignore_errors=True)

    # Compare.
    sym = Symbolicator(addr2line)
    summary = {"programs": len(built), "tests": 0, "allowed": 0, "release_unexpected": 0, "debug_unexpected": 0,
               "unstable_tests": 0, "unstable_programs": 0}
    per_folder, programs_out, lines = {}, [], []
    for p in built:
        r = runs[p.key]
        f = per_folder.setdefault(p.folder, {"programs": 0, "tests": 0, "allowed": 0, "release": 0, "debug": 0,
                                             "unstable": 0, "bad": []})
        f["programs"] += 1
        tests = sum(1 for k in r["plain"]["results"] if k.startswith("test|"))
        f["tests"] += tests
        summary["tests"] += tests
        entry = {"program": p.key, "tests": tests,
                 "runs": {k: {x: v[x] for x in ("status", "seconds", "repaired_lines", "stderr", "hang_backtrace",
                                                "crash_excerpt")} | {"results": v["results"],
                                                                     "reports": len(v["reports"])}
                          for k, v in r.items()}}
        if r["plain"]["status"] != r["plain2"]["status"]:
            entry["unstable"] = f"plain runs ended differently: {r['plain']['status']} / {r['plain2']['status']}"
            lines.append(f"excluded (unstable plain): {p.key}: {entry['unstable']}")
            summary["unstable_programs"] += 1
            f["unstable"] += tests
            programs_out.append(entry)
            continue
        a, b = r["plain"]["results"], r["plain2"]["results"]
        unstable = {k for k in set(a) | set(b) if a.get(k) != b.get(k)}
        if unstable:
            entry["unstable_keys"] = sorted(unstable)
            n = sum(1 for k in unstable if k.startswith("test|"))
            summary["unstable_tests"] += n
            f["unstable"] += n
            lines.append(f"excluded (unstable plain): {p.key}: {', '.join(sorted(unstable)[:6])}"
                         f"{' ...' if len(unstable) > 6 else ''}")
        diffs = compare(p, base, r, sym, unstable, [cfg.testframework])
        entry["differences"] = diffs
        for mode in ("release", "debug"):
            unexpected = [d for d in diffs[mode] if not d["allowed"]]
            allowed = len(diffs[mode]) - len(unexpected)
            summary["allowed"] += allowed
            f["allowed"] += allowed
            summary[f"{mode}_unexpected"] += len(unexpected)
            f[mode] += len(unexpected)
            if not unexpected:
                continue
            # One block per program and mode: how it ended, changed results, results that no longer appear.
            head = f"{mode}: {p.key}:"
            status = [d for d in unexpected if d["kind"] == "status"]
            missing = [d for d in unexpected if d["kind"] == "result" and d["mode"] == "missing"]
            changed = [d for d in unexpected if d["kind"] == "result" and d["mode"] != "missing"]
            if status:
                head += f" {status[0]['plain']} -> {status[0]['mode']};"
            if missing:
                first = missing[0]
                head += f" {len(missing)} results no longer appear (first {first['location']}#{first['occurrence']} {first['key'].split('|')[0]});"
            f["bad"].append(head.rstrip(";"))
            for d in changed[:8]:
                f["bad"].append(f"    {d['location']}#{d['occurrence']} {d['key'].split('|')[0]} {d['plain']} -> {d['mode']}"
                                + (f" ({d['why']})" if d.get("why") else ""))
            if len(changed) > 8:
                f["bad"].append(f"    ... {len(changed) - 8} more changed results")
            if status and status[0].get("why"):
                f["bad"].extend("      | " + l for l in status[0]["why"])
            hang = r[mode].get("hang_backtrace")
            if hang:
                f["bad"].append(f"      | all threads' backtraces: {hang}")
        programs_out.append(entry)

    log("")
    for l in lines:
        log(l)
    log("")
    log(f"{'folder':28} {'progs':>5} {'tests':>6} {'stops':>6} {'release!':>8} {'debug!':>7} {'unstable':>8}")
    for folder in folders:
        if folder not in per_folder:
            continue
        f = per_folder[folder]
        log(f"{folder:28} {f['programs']:>5} {f['tests']:>6} {f['allowed']:>6} {f['release']:>8} {f['debug']:>7} {f['unstable']:>8}")
    bad = [b for folder in folders if folder in per_folder for b in per_folder[folder]["bad"]]
    if bad:
        log("")
        log("unexpected changes:")
        for b in bad:
            log("  " + b)
    timing = {"build_seconds": round(build_seconds, 1)} | {f"{k}_seconds": round(v, 1) for k, v in phase_seconds.items()}
    log("")
    log("timing: build %.1f s; plain %.1f s, plain again %.1f s, release %.1f s, debug %.1f s" % (
        build_seconds, phase_seconds["plain"], phase_seconds["plain2"], phase_seconds["release"], phase_seconds["debug"]))
    final = (f"gnustep suite: {summary['programs']} programs, {summary['tests']} tests; release: {summary['allowed']} "
             f"allowed stops (reported), {summary['release_unexpected']} unexpected changes; debug: "
             f"{summary['debug_unexpected']} unexpected changes")
    if summary["unstable_tests"] or summary["unstable_programs"]:
        final += f" ({summary['unstable_tests']} unstable tests, {summary['unstable_programs']} unstable programs excluded)"
    if failed_builds:
        final += f"; {len(failed_builds)} programs did not build"
    with open(cfg.results, "w") as out:
        json.dump({"gnustepBase": cfg.version, "summary": summary, "timing": timing, "notes": notes,
                   "failedBuilds": {k: errors[k] for k in failed_builds}, "programs": programs_out}, out, indent=1)
    log(f"results: {cfg.results}")
    log(final)
    return 1 if summary["release_unexpected"] or summary["debug_unexpected"] or failed_builds else 0


if __name__ == "__main__":
    sys.exit(main())
