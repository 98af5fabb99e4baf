// objc/blocks_runtime.h for GNUstep Base on GCC's libobjc (Linux only; Package.swift adds this folder to the header
// search path there). GNUstep's headers include this libobjc2 header whenever the compiler has blocks
// (GSVersionMacros.h); GCC's libobjc has none. Debian's libBlocksRuntime (libblocksruntime-dev) provides the same
// functions under Apple's name.
#include <Block.h>
