#!/usr/bin/env bash
# Writes a shared Xcode scheme for Tools/Package.swift that builds and runs only its test targets (CrashShieldTests,
# CrashShieldObjCTests) and what they depend on: `CrashShieldTools-Tests`. Xcode's own `CrashShieldTools-Package`
# scheme also builds the package's command-line tools (crashshield-matrix, -bench, -report, -proof), which cannot be
# built for iOS (`com.apple.product-type.tool` for iphonesimulator), so the simulator job of
# .github/workflows/apple.yml tests with this one:
#   scripts/write-xcode-test-scheme.sh
#   xcodebuild test -scheme CrashShieldTools-Tests -destination "platform=iOS Simulator,id=$UDID"   (in Tools/)
# Xcode reads a package's shared schemes from .swiftpm/xcode/xcshareddata/xcschemes (ignored by git: written here).
set -euo pipefail
cd "$(dirname "$0")/../Tools"
schemes=.swiftpm/xcode/xcshareddata/xcschemes
mkdir -p "$schemes"
reference() {
    cat <<XML
            <BuildableReference
               BuildableIdentifier = "primary"
               BlueprintIdentifier = "$1"
               BuildableName = "$1"
               BlueprintName = "$1"
               ReferencedContainer = "container:">
            </BuildableReference>
XML
}
targets=(CrashShieldTests CrashShieldObjCTests)
{
    cat <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<Scheme
   LastUpgradeVersion = "1600"
   version = "1.7">
   <BuildAction
      parallelizeBuildables = "YES"
      buildImplicitDependencies = "YES">
      <BuildActionEntries>
XML
    for target in "${targets[@]}"; do
        cat <<'XML'
         <BuildActionEntry
            buildForTesting = "YES"
            buildForRunning = "NO"
            buildForProfiling = "NO"
            buildForArchiving = "NO"
            buildForAnalyzing = "NO">
XML
        reference "$target"
        echo "         </BuildActionEntry>"
    done
    cat <<'XML'
      </BuildActionEntries>
   </BuildAction>
   <TestAction
      buildConfiguration = "Debug"
      selectedDebuggerIdentifier = "Xcode.DebuggerFoundation.Debugger.LLDB"
      selectedLauncherIdentifier = "Xcode.DebuggerFoundation.Launcher.LLDB"
      shouldUseLaunchSchemeArgsEnv = "YES">
      <Testables>
XML
    for target in "${targets[@]}"; do
        cat <<'XML'
         <TestableReference
            skipped = "NO"
            parallelizable = "NO">
XML
        reference "$target"
        echo "         </TestableReference>"
    done
    cat <<'XML'
      </Testables>
   </TestAction>
</Scheme>
XML
} >"$schemes/CrashShieldTools-Tests.xcscheme"
echo "wrote Tools/$schemes/CrashShieldTools-Tests.xcscheme"
