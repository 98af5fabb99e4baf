#!/usr/bin/env bash
# The privacy manifests (PrivacyInfo.xcprivacy) App Store Connect reads from the library's resource bundles.
# An upload whose code uses a required-reason API without a declared reason is rejected (ITMS-91053); a manifest
# that is not a valid property list, or names a reason Apple does not document, is as good as none.
#
# For every library target (Sources/<target>):
#   1. each PrivacyInfo.xcprivacy is a property list with Apple's keys and types: NSPrivacyTracking (bool),
#      NSPrivacyTrackingDomains (strings; empty when not tracking), NSPrivacyCollectedDataTypes (Apple's data types and
#      purposes), NSPrivacyAccessedAPITypes (Apple's categories, each with reasons documented for that category);
#   2. every required-reason API the target's sources call (found by grep, whole-line comments left out) belongs to a
#      category its manifest declares;
#   3. Package.swift (`swift package dump-package`) lists the manifest as a resource of that target (.copy or
#      .process), so that it is in the target's resource bundle.
# Apple's lists: "Describing use of required reason API" and "Describing data use in privacy manifests"
# (developer.apple.com, Bundle Resources > Privacy manifest files). Update the tables below when Apple adds one.
#
#   scripts/check-privacy-manifest.sh             check the package
#   scripts/check-privacy-manifest.sh --self-test also show that each kind of fault is caught (a reason removed, a
#                                                 reason of another category, a category missing, the resource
#                                                 missing from Package.swift, a wrong type)
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v python3 >/dev/null; then
    echo "check-privacy-manifest: python3 is required" >&2
    exit 1
fi
PACKAGE_JSON=$(swift package dump-package)
export PACKAGE_JSON
python3 - "$@" <<'EOF'
import copy, json, os, plistlib, re, sys

# Required-reason API categories: the reasons Apple documents for each, and what in a source file calls one.
CATEGORIES = {
    "NSPrivacyAccessedAPICategoryFileTimestamp": {
        "reasons": {"DDA9.1", "C617.1", "3B52.1", "0A2A.1"},
        "pattern": r"\b[fl]?stat(at)?\s*\(|\bf?getattrlist(bulk|at)?\s*\(|\bsetattrlist(bulk)?\s*\("
        r"|\.(creationDate|modificationDate)\b|\bfileModificationDate\b|\b(contentModification|creation)DateKey\b"
        r"|\bNSFile(Creation|Modification)Date\b|\bNSURL(ContentModification|Creation)DateKey\b",
    },
    "NSPrivacyAccessedAPICategorySystemBootTime": {
        "reasons": {"35F9.1", "8FFB.1", "3D61.1"},
        "pattern": r"\bsystemUptime\b|\bmach_absolute_time\b",
    },
    "NSPrivacyAccessedAPICategoryDiskSpace": {
        "reasons": {"85F4.1", "E174.1", "7D9E.1", "B728.1"},
        "pattern": r"\bf?statv?fs\s*\(|\b(NSURL)?[vV]olume(AvailableCapacity\w*|TotalCapacity)Key\b"
        r"|\bsystem(Free)?Size\b|\bNSFileSystem(Free)?Size\b",
    },
    "NSPrivacyAccessedAPICategoryActiveKeyboards": {
        "reasons": {"3EC4.1", "54BD.1"},
        "pattern": r"\bactiveInputModes\b",
    },
    "NSPrivacyAccessedAPICategoryUserDefaults": {
        "reasons": {"CA92.1", "1C8F.1", "C56D.1", "AC6B.1"},
        "pattern": r"\b(NS)?UserDefaults\b",
    },
}
DATA_TYPES = {
    "NSPrivacyCollectedDataType" + name
    for name in (
        "Name EmailAddress PhoneNumber PhysicalAddress OtherUserContactInfo Health Fitness PaymentInfo CreditInfo "
        "OtherFinancialInfo PreciseLocation CoarseLocation SensitiveInfo Contacts EmailsOrTextMessages PhotosorVideos "
        "AudioData GameplayContent CustomerSupport OtherUserContent BrowsingHistory SearchHistory UserID DeviceID "
        "PurchaseHistory ProductInteraction AdvertisingData OtherUsageData CrashData PerformanceData "
        "OtherDiagnosticData EnvironmentScanning Hands Head OtherDataTypes"
    ).split()
}
PURPOSES = {
    "NSPrivacyCollectedDataTypePurpose" + name
    for name in "ThirdPartyAdvertising DeveloperAdvertising Analytics ProductPersonalization AppFunctionality Other".split()
}
TOP_KEYS = {"NSPrivacyTracking", "NSPrivacyTrackingDomains", "NSPrivacyCollectedDataTypes", "NSPrivacyAccessedAPITypes"}
MANIFEST = "PrivacyInfo.xcprivacy"
SOURCE_SUFFIXES = (".swift", ".m", ".c", ".h", ".mm", ".cpp")
COMMENT_LINE = re.compile(r"^\s*(//|/\*|\*)")


def manifest_errors(m):
    """What is wrong with one manifest's contents (a parsed property list)."""
    errors = []
    if not isinstance(m, dict):
        return ["the root is not a dictionary"]
    for key in sorted(set(m) - TOP_KEYS):
        errors.append(f"unknown key {key}")
    for key in sorted(TOP_KEYS - set(m)):
        errors.append(f"missing key {key}")
    tracking = m.get("NSPrivacyTracking")
    if "NSPrivacyTracking" in m and not isinstance(tracking, bool):
        errors.append("NSPrivacyTracking is not a boolean")
    domains = m.get("NSPrivacyTrackingDomains", [])
    if not isinstance(domains, list) or not all(isinstance(d, str) for d in domains):
        errors.append("NSPrivacyTrackingDomains is not an array of strings")
    elif domains and tracking is not True:
        errors.append("NSPrivacyTrackingDomains lists domains but NSPrivacyTracking is not true")
    collected = m.get("NSPrivacyCollectedDataTypes", [])
    if not isinstance(collected, list):
        errors.append("NSPrivacyCollectedDataTypes is not an array")
        collected = []
    for i, entry in enumerate(collected):
        where = f"NSPrivacyCollectedDataTypes[{i}]"
        if not isinstance(entry, dict):
            errors.append(f"{where} is not a dictionary")
            continue
        expected = {"NSPrivacyCollectedDataType", "NSPrivacyCollectedDataTypeLinked",
                    "NSPrivacyCollectedDataTypeTracking", "NSPrivacyCollectedDataTypePurposes"}
        for key in sorted(set(entry) ^ expected):
            errors.append(f"{where}: {'unknown' if key in entry else 'missing'} key {key}")
        if entry.get("NSPrivacyCollectedDataType") not in DATA_TYPES:
            errors.append(f"{where}: {entry.get('NSPrivacyCollectedDataType')!r} is not one of Apple's data types")
        for key in ("NSPrivacyCollectedDataTypeLinked", "NSPrivacyCollectedDataTypeTracking"):
            if key in entry and not isinstance(entry[key], bool):
                errors.append(f"{where}: {key} is not a boolean")
        if entry.get("NSPrivacyCollectedDataTypeTracking") is True and tracking is not True:
            errors.append(f"{where}: used for tracking but NSPrivacyTracking is not true")
        purposes = entry.get("NSPrivacyCollectedDataTypePurposes")
        if not isinstance(purposes, list) or not purposes:
            errors.append(f"{where}: NSPrivacyCollectedDataTypePurposes is not a non-empty array")
        else:
            for p in purposes:
                if p not in PURPOSES:
                    errors.append(f"{where}: {p!r} is not one of Apple's purposes")
    accessed = m.get("NSPrivacyAccessedAPITypes", [])
    if not isinstance(accessed, list):
        errors.append("NSPrivacyAccessedAPITypes is not an array")
        accessed = []
    seen = set()
    for i, entry in enumerate(accessed):
        where = f"NSPrivacyAccessedAPITypes[{i}]"
        if not isinstance(entry, dict):
            errors.append(f"{where} is not a dictionary")
            continue
        for key in sorted(set(entry) ^ {"NSPrivacyAccessedAPIType", "NSPrivacyAccessedAPITypeReasons"}):
            errors.append(f"{where}: {'unknown' if key in entry else 'missing'} key {key}")
        category = entry.get("NSPrivacyAccessedAPIType")
        if category not in CATEGORIES:
            errors.append(f"{where}: {category!r} is not one of Apple's required-reason API categories")
            continue
        if category in seen:
            errors.append(f"{where}: {category} is declared twice")
        seen.add(category)
        reasons = entry.get("NSPrivacyAccessedAPITypeReasons")
        if not isinstance(reasons, list) or not reasons or not all(isinstance(r, str) for r in reasons):
            errors.append(f"{where}: {category} has no reasons (a non-empty array of strings)")
            continue
        for r in reasons:
            if r not in CATEGORIES[category]["reasons"]:
                errors.append(f"{where}: {r!r} is not a reason Apple documents for {category} "
                              f"({', '.join(sorted(CATEGORIES[category]['reasons']))})")
    return errors


def declared(m):
    """The categories a manifest declares with at least one reason."""
    out = set()
    for entry in m.get("NSPrivacyAccessedAPITypes", []) if isinstance(m, dict) else []:
        if isinstance(entry, dict) and entry.get("NSPrivacyAccessedAPITypeReasons"):
            out.add(entry.get("NSPrivacyAccessedAPIType"))
    return out


def used_categories(folder):
    """{category: ["file:line: text", ...]} of the required-reason API calls in a target's sources."""
    found = {}
    for root, _, files in os.walk(folder):
        for name in sorted(files):
            if not name.endswith(SOURCE_SUFFIXES):
                continue
            path = os.path.join(root, name)
            with open(path, encoding="utf-8", errors="replace") as f:
                for number, line in enumerate(f, 1):
                    if COMMENT_LINE.match(line):
                        continue
                    code = line.split("//", 1)[0]  # a trailing comment
                    for category, info in CATEGORIES.items():
                        if re.search(info["pattern"], code):
                            found.setdefault(category, []).append(f"{path}:{number}: {line.strip()}")
    return found


def check(package, manifests, uses):
    """Every fault of the package: `package` is dump-package's JSON, `manifests` {target: parsed manifest or an
    error text}, `uses` {target: used_categories}."""
    errors = []
    targets = {t["name"]: t for t in package["targets"] if t.get("type") in ("regular", None)}
    for name in sorted(targets):
        target = targets[name]
        resources = {r["path"] for r in target.get("resources", []) if set(r["rule"]) & {"copy", "process"}}
        m = manifests.get(name)
        used = uses.get(name, {})
        if isinstance(m, str):
            errors.append(f"{name}/{MANIFEST}: {m}")
            continue
        if m is not None:
            errors += [f"{name}/{MANIFEST}: {e}" for e in manifest_errors(m)]
            if MANIFEST not in resources:
                errors.append(f"{name}: Package.swift does not list {MANIFEST} as a resource of the target "
                              f"(resources: [.copy(\"{MANIFEST}\")]): it would not ship")
        for category in sorted(used):
            if m is None or category not in declared(m):
                sites = "\n      ".join(used[category][:5])
                errors.append(f"{name}: calls {category} APIs, which {MANIFEST} does not declare with a reason:"
                              f"\n      {sites}")
    return errors


def load(path):
    try:
        with open(path, "rb") as f:
            return plistlib.load(f)
    except Exception as error:  # a manifest Xcode cannot read
        return f"not a property list ({error})"


package = json.loads(os.environ["PACKAGE_JSON"])
manifests, uses = {}, {}
for t in package["targets"]:
    if t.get("type") != "regular":
        continue
    folder = t.get("path") or os.path.join("Sources", t["name"])
    path = os.path.join(folder, MANIFEST)
    if os.path.exists(path):
        manifests[t["name"]] = load(path)
    uses[t["name"]] = used_categories(folder)

errors = check(package, manifests, uses)
if errors:
    print("check-privacy-manifest: FAILED", file=sys.stderr)
    for e in errors:
        print("  " + e, file=sys.stderr)
    sys.exit(1)

for name in sorted(uses):
    if uses[name] or name in manifests:
        short = lambda cats: ", ".join(c.replace("NSPrivacyAccessedAPICategory", "") for c in sorted(cats)) or "none"
        print(f"check-privacy-manifest: {name}: its sources call {short(uses[name])}; {MANIFEST} declares "
              f"{short(declared(manifests.get(name, {})))}")

if "--self-test" in sys.argv[1:]:
    # Each fault, made on a copy of the real package, must be caught.
    def faulty(name, change):
        p, m = copy.deepcopy(package), copy.deepcopy(manifests)
        change(p, m)
        caught = check(p, m, uses)
        print(f"check-privacy-manifest: self-test: {name}: " + ("caught: " + caught[0].splitlines()[0] if caught
                                                                else "NOT CAUGHT"))
        return bool(caught)

    def drop_reason(p, m):  # the file-timestamp entry of CrashShield's manifest left with no reason
        for e in m["CrashShield"]["NSPrivacyAccessedAPITypes"]:
            if e["NSPrivacyAccessedAPIType"].endswith("FileTimestamp"):
                e["NSPrivacyAccessedAPITypeReasons"] = []

    def foreign_reason(p, m):  # a disk-space reason under file timestamps
        m["CrashShield"]["NSPrivacyAccessedAPITypes"][0]["NSPrivacyAccessedAPITypeReasons"] = ["E174.1"]

    def drop_category(p, m):
        m["CrashShield"]["NSPrivacyAccessedAPITypes"] = [
            e for e in m["CrashShield"]["NSPrivacyAccessedAPITypes"]
            if not e["NSPrivacyAccessedAPIType"].endswith("UserDefaults")]

    def drop_resource(p, m):
        for t in p["targets"]:
            if t["name"] == "CrashShield":
                t["resources"] = []

    def wrong_type(p, m):
        m["CrashShieldUpload"]["NSPrivacyTracking"] = "NO"

    results = [faulty(n, f) for n, f in [("a reason removed", drop_reason), ("a reason of another category",
               foreign_reason), ("a category missing", drop_category), ("the resource missing from Package.swift",
               drop_resource), ("NSPrivacyTracking a string", wrong_type)]]
    if not all(results):
        sys.exit(1)
EOF
