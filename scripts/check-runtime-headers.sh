#!/usr/bin/env bash
# A guard's C half is found from its name: every csr_* function the runtime layer declares in
# Sources/CrashShieldRuntime/include/NAME.h is defined in NAME.c or NAME.m (Sources/CrashShieldRuntime, or its
# GNUstep/ folder), in a platform unit of that name (Apple/NAMEApple.m, GNUstep/NAMEGNUstep.m: the functions whose
# forms differ between the runtimes), or inline in NAME.h itself; and every .c/.m file there has a header of its own
# name (include/, or GNUstep/ for what only the Linux proving ground uses; a platform unit the header of its NAME).
# Fails naming each function declared in another file's header.
set -euo pipefail
cd "$(dirname "$0")/../Sources/CrashShieldRuntime"
python3 - <<'PYEOF'
import glob, os, re, sys

def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', lambda m: '\n' * m.group(0).count('\n'), text, flags=re.S)
    return re.sub(r'//[^\n]*', '', text)

def stem(path):
    """A file's name without its extension, and a platform unit's without its platform."""
    name = os.path.splitext(os.path.basename(path))[0]
    folder = os.path.basename(os.path.dirname(path))
    if folder in ('Apple', 'GNUstep') and name.endswith(folder) and name != folder:
        name = name[:-len(folder)]
    return name

sources = sorted(glob.glob('*.c') + glob.glob('*.m') + glob.glob('GNUstep/*.c') + glob.glob('GNUstep/*.m')
                 + glob.glob('Apple/*.c') + glob.glob('Apple/*.m'))
headers = sorted(glob.glob('include/*.h') + glob.glob('GNUstep/*.h'))
# Where each function is defined: a name followed by its parameter list and a body, at the top level of a file.
definition = re.compile(r'^[A-Za-z_][^;{}()]*?\b(csr_\w+)\s*\(([^;{}]*?)\)\s*(?:CSR_RETURNS_RETAINED\s*)?\{', re.M | re.S)
defined = {}
for path in sources + headers:
    for match in definition.finditer(strip_comments(open(path).read())):
        defined.setdefault(match.group(1), set()).add(path)
declaration = re.compile(r'^[A-Za-z_][^;{}()#]*?\b(csr_\w+)\s*\([^;{}]*?\)\s*(?:CSR_RETURNS_RETAINED\s*)?;', re.M | re.S)
problems, count = [], 0
for header in headers:
    for name in sorted(set(declaration.findall(strip_comments(open(header).read())))):
        count += 1
        places = defined.get(name, set())
        if not places:
            problems.append('%s declares %s, which no file of the runtime layer defines' % (header, name))
        elif not any(stem(place) == stem(header) for place in places):
            problems.append('%s declares %s, defined in %s: declare it in %s.h' % (
                header, name, ', '.join(sorted(places)), ' / '.join(sorted(stem(p) for p in places))))
for source in sources:
    if not any(stem(header) == stem(source) for header in headers):
        problems.append('%s has no header of its name (include/%s.h)' % (source, stem(source)))
if problems:
    print('\n'.join('check-runtime-headers: ' + p for p in problems))
    sys.exit(1)
print('check-runtime-headers: %d csr_* declarations, each in the header named after the file that defines it (%d '
      'source files)' % (count, len(sources)))
PYEOF
