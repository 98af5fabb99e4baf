// CSRCallStack.c: call stacks and image lookup (see CSRCallStack.h).
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <execinfo.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <unwind.h>
#include <pthread.h>
#include "CSRCallStack.h"
#include "CSRCallStackPlatform.h"   // what differs between the platforms, message sends included: Apple/, GNUstep/
#if defined(__has_feature)
#if __has_feature(ptrauth_calls)
#include <ptrauth.h>
#define CSR_PTRAUTH 1
#endif
#endif

uintptr_t csr_strip_code_pointer(const void *pointer) {
#if CSR_PTRAUTH
    return (uintptr_t)ptrauth_strip(pointer, ptrauth_key_function_pointer);
#else
    return (uintptr_t)pointer;
#endif
}

// MARK: Frame-pointer walk

/// The current thread's stack bounds, found once per thread (`csr_platform_stack_bounds`).
static __thread uintptr_t csr_stack_low, csr_stack_high;

static void csr_find_stack_bounds(void) {
    csr_platform_stack_bounds(&csr_stack_low, &csr_stack_high);
    if (csr_stack_high <= csr_stack_low) csr_stack_low = csr_stack_high = 1;   // unknown: walk nothing
}

int csr_frame_backtrace(void **frames, int max) {
#if defined(__x86_64__) || defined(__aarch64__) || defined(__arm64__)
    if (frames == NULL || max <= 0) return 0;
    if (csr_stack_high == 0) csr_find_stack_bounds();
    uintptr_t fp = (uintptr_t)__builtin_frame_address(0);
    int count = 0;
    // A frame record is {previous frame pointer, return address}. Only records inside this thread's stack, each
    // above the last, are read: a frame without a frame pointer ends the walk, it cannot send it astray.
    while (count < max && fp >= csr_stack_low && fp + 2 * sizeof(uintptr_t) <= csr_stack_high
           && (fp & (sizeof(uintptr_t) - 1)) == 0) {
        const uintptr_t *record = (const uintptr_t *)fp;
        uintptr_t next = record[0], ret = record[1];
        if (ret == 0) break;
        frames[count++] = (void *)csr_strip_code_pointer((const void *)ret);   // arm64e: the saved LR is signed
        if (next <= fp) break;
        fp = next;
    }
    return count;
#else
    return 0;
#endif
}

const void *csr_enclosing_function(const void *address) {
    if (address == NULL) return NULL;
    // The unwinder's own tables (.eh_frame on ELF, __unwind_info on Mach-O) say where each function starts; they are
    // kept in stripped and statically linked binaries alike.
    return (const void *)csr_strip_code_pointer(_Unwind_FindEnclosingFunction((void *)csr_strip_code_pointer(address)));
}

/// Whether the byte at `address` lies in the function that starts at `function`. libgcc looks up the byte before
/// the address it is given (it expects a return address), Apple's libunwind the address itself: one past the byte
/// asked about lands inside its function with both.
bool csr_in_function(const uint8_t *address, const void *function) {
    return csr_strip_code_pointer(_Unwind_FindEnclosingFunction((void *)(address + 1))) == csr_strip_code_pointer(function);
}

/// The function a direct jump at `code` goes to, when it is one (x86_64: `jmp rel32`, `jmp rel8`; arm64: `b`) and
/// lands on the start of a function; NULL otherwise.
static const void *csr_jump_target(const uint8_t *code) {
    const uint8_t *target = NULL;
#if defined(__x86_64__)
    if (code[0] == 0xE9) {
        int32_t offset;
        memcpy(&offset, code + 1, sizeof offset);
        target = code + 5 + offset;
    } else if (code[0] == 0xEB) {
        target = code + 2 + (int8_t)code[1];
    }
#elif defined(__aarch64__) || defined(__arm64__)
    uint32_t instruction;
    memcpy(&instruction, code, sizeof instruction);
    if ((instruction & 0xFC000000u) == 0x14000000u) {
        int32_t words = (int32_t)(instruction << 6) >> 6;   // imm26, sign-extended
        target = code + (intptr_t)words * 4;
    }
#endif
    if (target == NULL || !csr_in_function(target, target)) return NULL;
    return target;
}

int csr_tail_call_targets(const void *entry, const void **targets, int max) {
    if (entry == NULL || targets == NULL || max <= 0) return 0;
    entry = (const void *)csr_strip_code_pointer(entry);   // arm64e: an IMP is signed; its code is read below
    int count = 0;
    const void *pending[8] = { entry };
    int head = 0, tail = 1;
    while (head < tail && count < max) {
        const void *function = pending[head++];
        if (!csr_in_function((const uint8_t *)function, function)) continue;
        const uint8_t *code = (const uint8_t *)function;
#if defined(__x86_64__)
        const int step = 1, width = 5;
#else
        const int step = 4, width = 4;
#endif
        // A thunk is short: the scan ends at the function's end or after 512 bytes.
        for (int offset = 0; offset + width <= 512 && count < max; offset += step) {
            if (!csr_in_function(code + offset, function)) break;
            const void *target = csr_jump_target(code + offset);
            if (target == NULL || target == entry) continue;
            bool known = false;
            for (int index = 0; index < count; index++) known = known || targets[index] == target;
            if (known) continue;
            targets[count++] = target;
            if (tail < (int)(sizeof pending / sizeof *pending)) pending[tail++] = target;
        }
    }
    return count;
}

// MARK: The call before a return address

bool csr_address_is_mapped(const void *address, size_t size, const void *sameImageAs) {
    if (address == NULL || size == 0) return false;
    CSRImageInfo mine, its;
    if (!csr_image_info(sameImageAs, &mine) || !csr_image_info(address, &its) || mine.imageBase != its.imageBase) {
        return false;
    }
    return csr_platform_range_is_mapped((uintptr_t)address, (uintptr_t)address + size);
}

/// The function a PLT entry or a Mach-O stub at `code` jumps to through its GOT slot (x86_64 `[endbr64] [bnd] jmp
/// *slot(%rip)`; arm64 `adrp x16, slot@PAGE; ldr x16, [x16, slot@PAGEOFF]; br x16` or arm64e's `braa x16, x17`);
/// `code` itself when it is neither.
static const void *csr_through_stub(const uint8_t *code) {
    const void *const *slot = NULL;
#if defined(__x86_64__)
    const uint8_t *at = code;
    if (at[0] == 0xF3 && at[1] == 0x0F && at[2] == 0x1E && at[3] == 0xFA) at += 4;   // endbr64
    if (at[0] == 0xF2) at += 1;                                                       // bnd
    if (at[0] == 0xFF && at[1] == 0x25) {
        int32_t offset;
        memcpy(&offset, at + 2, sizeof offset);
        slot = (const void *const *)(at + 6 + offset);
    }
#elif defined(__aarch64__) || defined(__arm64__)
    uint32_t words[3];
    memcpy(words, code, sizeof words);
    if ((words[0] & 0x9F00001Fu) == 0x90000010u && (words[1] & 0xFFC003FFu) == 0xF9400210u
        && (words[2] == 0xD61F0200u || words[2] == 0xD71F0A11u)) {
        uint64_t immlo = (words[0] >> 29) & 3, immhi = (words[0] >> 5) & 0x7FFFF;
        int64_t pages = (int64_t)((immhi << 2 | immlo) << 43) >> 31;   // 21 bits, sign-extended, times 4096
        uintptr_t page = ((uintptr_t)code & ~(uintptr_t)0xFFF) + (uintptr_t)pages;
        slot = (const void *const *)(page + ((words[1] >> 10) & 0xFFF) * 8);
    }
#endif
    if (slot == NULL) return code;
    // The slot lies in the stub's own image (its GOT), already bound: the calling code went through it.
    if (!csr_address_is_mapped(slot, sizeof *slot, code)) return code;
    return (const void *)csr_strip_code_pointer(*slot);
}

bool csr_call_before(const void *returnAddress, CSRCallBefore *out) {
    if (out == NULL) return false;
    memset(out, 0, sizeof *out);
    const uint8_t *ret = (const uint8_t *)csr_strip_code_pointer(returnAddress);
    if (ret == NULL) return false;
    const void *function = csr_enclosing_function(ret - 1);
    if (function == NULL) return false;
#if defined(__x86_64__)
    // call rel32: E8 and a displacement, landing on a function (or its PLT entry).
    if (ret - 5 >= (const uint8_t *)function && ret[-5] == 0xE8) {
        int32_t offset;
        memcpy(&offset, ret - 4, sizeof offset);
        const uint8_t *callee = ret + offset;
        // Bytes before a return address may only look like a call: its target is read only when the unwind tables
        // cover it (a function, or the PLT, which has its own entry), which only code that is mapped has.
        const void *target = csr_enclosing_function(callee + 1) != NULL ? csr_through_stub(callee) : NULL;
        if (target != NULL && csr_in_function(target, target)) {
            out->kind = CSRCallDirect;
            out->target = target;
            return true;
        }
    }
    // call *slot(%rip) (-fno-plt): FF 15 and a displacement.
    if (ret - 6 >= (const uint8_t *)function && ret[-6] == 0xFF && ret[-5] == 0x15) {
        int32_t offset;
        memcpy(&offset, ret - 4, sizeof offset);
        const void *const *slot = (const void *const *)(ret + offset);
        if (csr_address_is_mapped(slot, sizeof *slot, ret)) {
            const void *target = (const void *)csr_strip_code_pointer(*slot);
            if (target != NULL && csr_in_function(target, target)) {
                out->kind = CSRCallDirect;
                out->target = target;
                return true;
            }
        }
    }
    // call *reg (FF D0+r, REX 41 for r8-r15), call *(reg) (FF 10+r), call *disp8(reg) (FF 50+r), call *disp32(reg).
    bool indirect = (ret - 2 >= (const uint8_t *)function && ret[-2] == 0xFF && (ret[-1] & 0xF8) == 0xD0)
                    || (ret - 2 >= (const uint8_t *)function && ret[-2] == 0xFF && (ret[-1] & 0xF8) == 0x10
                        && (ret[-1] & 7) != 4 && (ret[-1] & 7) != 5)
                    || (ret - 3 >= (const uint8_t *)function && ret[-3] == 0xFF && (ret[-2] & 0xF8) == 0x50
                        && (ret[-2] & 7) != 4)
                    || (ret - 6 >= (const uint8_t *)function && ret[-6] == 0xFF && (ret[-5] & 0xF8) == 0x90
                        && (ret[-5] & 7) != 4);
    if (!indirect) return false;
    out->kind = CSRCallIndirect;
    csr_platform_indirect_message_send(ret, function, out);
    return true;
#elif defined(__aarch64__) || defined(__arm64__)
    const uint32_t *call = (const uint32_t *)ret - 1;
    if ((const uint8_t *)call < (const uint8_t *)function || ((uintptr_t)ret & 3) != 0) return false;
    uint32_t instruction = *call;
    if ((instruction & 0xFC000000u) == 0x94000000u) {   // bl imm26
        int32_t words = (int32_t)(instruction << 6) >> 6;
        const uint8_t *callee = (const uint8_t *)call + (intptr_t)words * 4;
        // A bl's target is code the linker placed in the same image (a function or a stub): read only then.
        if (!csr_address_is_mapped(callee, 20, call)) return false;
        out->kind = CSRCallDirect;
        const void *target = csr_through_stub(callee);
        if (csr_platform_direct_message_send(call, target, function, out)) return true;
        out->target = target != NULL && csr_in_function(target, target) ? target : NULL;
        if (out->target == NULL) out->kind = CSRCallUnknown;
        return out->kind != CSRCallUnknown;
    }
    // blr xN; arm64e: blraa/blrab xN, xM and blraaz/blrabz xN.
    if ((instruction & 0xFFFFFC1Fu) == 0xD63F0000u || (instruction & 0xFEFFF800u) == 0xD63F0800u) {
        out->kind = CSRCallIndirect;
        return true;
    }
    return false;
#else
    return false;
#endif
}

const void *csr_function_end(const void *function, size_t limit) {
    const uint8_t *start = (const uint8_t *)csr_strip_code_pointer(function);
    if (start == NULL || !csr_in_function(start, start)) return function;
    // The function's bytes are one interval from its start: find its end by doubling, then bisecting.
    size_t inside = 0, outside = 16;
    while (outside < limit && csr_in_function(start + outside, start)) {
        inside = outside;
        outside *= 2;
    }
    if (outside >= limit) {
        if (csr_in_function(start + limit - 1, start)) return start + limit;
        outside = limit - 1;
    }
    while (outside - inside > 1) {
        size_t middle = inside + (outside - inside) / 2;
        if (csr_in_function(start + middle, start)) inside = middle; else outside = middle;
    }
    return start + inside + 1;
}

uint64_t csr_code_hash(const void *start, const void *end) {
    const uint8_t *code = (const uint8_t *)csr_strip_code_pointer(start);
    if (code == NULL || (const uint8_t *)end <= code) return 0;
    size_t size = (size_t)((const uint8_t *)end - code);
    if (size > 1024) size = 1024;
    uint64_t hash = 0xcbf29ce484222325ULL;   // FNV-1a
#define CSR_HASH_BYTE(byte) (hash = (hash ^ (uint8_t)(byte)) * 0x100000001b3ULL)
#if defined(__x86_64__)
    // A stable hash needs no full decoder: the displacements that move are 4 bytes after a call/jmp opcode (E8, E9)
    // or after a ModRM byte that names RIP (mod 00, r/m 101) following an opcode that takes one. The scan goes
    // forward and skips what it masks, so a masked displacement's bytes never start a match: the same unmasked bytes
    // make the same decisions in every build.
    static const uint8_t modrmOpcodes[] = { 0x01, 0x03, 0x09, 0x0B, 0x21, 0x23, 0x29, 0x2B, 0x31, 0x33, 0x39, 0x3B,
                                            0x63, 0x80, 0x81, 0x83, 0x85, 0x88, 0x89, 0x8A, 0x8B, 0x8D, 0xC6, 0xC7,
                                            0xF6, 0xF7, 0xFF };
    for (size_t i = 0; i < size; i++) {
        uint8_t byte = code[i];
        size_t displacement = 0;   // where the 4 masked bytes start, 0 for none
        if ((byte == 0xE8 || byte == 0xE9) && i + 5 <= size) {
            displacement = i + 1;
        } else if (byte == 0x0F && i + 7 <= size && (code[i + 2] & 0xC7) == 0x05) {
            displacement = i + 3;   // a two-byte opcode (movss, movzx, ucomisd...) with a RIP-relative operand
        } else if (i + 6 <= size && (code[i + 1] & 0xC7) == 0x05 && memchr(modrmOpcodes, byte, sizeof modrmOpcodes)) {
            displacement = i + 2;
        }
        CSR_HASH_BYTE(byte);
        if (displacement == 0) continue;
        for (size_t k = i + 1; k < displacement; k++) CSR_HASH_BYTE(code[k]);
        for (int k = 0; k < 4; k++) CSR_HASH_BYTE(0);
        i = displacement + 3;
    }
#elif defined(__aarch64__) || defined(__arm64__)
    uint32_t pageRegisters = 0;   // registers an adrp wrote: their add/ldr/str offsets are page offsets
    for (size_t i = 0; i + 4 <= size; i += 4) {
        uint32_t word;
        memcpy(&word, code + i, sizeof word);
        if ((word & 0x1F000000u) == 0x10000000u) {                     // adr, adrp
            if (word & 0x80000000u) pageRegisters |= 1u << (word & 31);
            word &= 0x9F00001Fu;
        } else if ((word & 0x7C000000u) == 0x14000000u) {              // b, bl
            word &= 0xFC000000u;
        } else if ((word & 0x3B000000u) == 0x18000000u) {              // ldr (literal)
            word &= 0xFF00001Fu;
        } else if (((word & 0x7F800000u) == 0x11000000u || (word & 0x3B000000u) == 0x39000000u)
                   && (pageRegisters & (1u << ((word >> 5) & 31)))) {  // add #imm / ldr, str [xN, #imm]
            word &= ~(0xFFFu << 10);
        }
        for (int k = 0; k < 4; k++) CSR_HASH_BYTE(word >> (8 * k));
    }
#else
    for (size_t i = 0; i < size; i++) CSR_HASH_BYTE(code[i]);
#endif
    // And the function's whole length: functions that begin alike (a prologue, the same first call) stay apart.
    uint64_t length = (uint64_t)((const uint8_t *)end - code);
    for (int k = 0; k < 8; k++) CSR_HASH_BYTE(length >> (8 * k));
#undef CSR_HASH_BYTE
    return hash;
}

bool csr_image_info(const void *address, CSRImageInfo *out) {
    if (out == NULL) return false;
    memset(out, 0, sizeof *out);
    Dl_info info;
    if (address == NULL || dladdr(address, &info) == 0 || info.dli_fname == NULL) return false;
    out->imagePath = info.dli_fname;
    out->imageBase = (uintptr_t)info.dli_fbase;
    out->slide = (intptr_t)info.dli_fbase;
    out->symbolName = info.dli_sname;
    out->symbolAddress = (uintptr_t)info.dli_saddr;
    csr_platform_image_details(info.dli_fbase, out);
    return true;
}
