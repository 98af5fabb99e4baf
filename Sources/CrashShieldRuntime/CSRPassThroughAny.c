// CSRPassThroughAny.c: pass-throughs for stopped overrides of any argument shape (see CSRPassThroughAny.h).
//
// A C function cannot pass on arguments it does not declare: a floating-point or vector register, a struct copied to
// the stack, the hidden address of a struct returned in memory, x86_64's `%al` of a variadic call would not survive
// the lookup call. These pass-throughs are written in assembly: each entry puts its index in a scratch register and
// jumps to one common body that saves every argument register (x86_64: rdi, rsi, rdx, rcx, r8, r9, rax and xmm0-7;
// arm64: x0-x8 and q0-q7), asks `csr_pass_any_lookup` for the superclass's current implementation, restores the
// registers and the stack pointer exactly as they were at entry, and jumps to it. Arguments on the stack are never
// touched, and the callee returns straight to the caller, so every argument and return shape passes through.
#include "CSRPassThroughAny.h"
#include "CSRPassThrough.h"   // CSR_PASS_THROUGH_CAPACITY: both kinds have pools of that size
#include "CSRRuntime.h"
#include <pthread.h>
#include <stdint.h>
#ifndef __has_feature
#define __has_feature(feature) 0   /* GCC (the arm64 test build under qemu) */
#endif
#if __has_feature(ptrauth_calls)
#include <ptrauth.h>
#endif

#if defined(__x86_64__) || defined(__aarch64__) || defined(__arm64__)

static CSRClass csr_pass_any_classes[CSR_PASS_THROUGH_CAPACITY];
static CSRSelector csr_pass_any_selectors[CSR_PASS_THROUGH_CAPACITY];
/// The superclass of each entry's class (a class's superclass never changes), noted before the entry is handed out.
static CSRClass csr_pass_any_superclasses[CSR_PASS_THROUGH_CAPACITY];
static long csr_pass_any_count;
static pthread_mutex_t csr_pass_any_lock = PTHREAD_MUTEX_INITIALIZER;

/// Called from the assembly body with the entry's index: the superclass's current implementation (its address,
/// without a pointer-authentication signature on arm64e: the body branches to it with a plain `br`).
__attribute__((visibility("hidden"), used)) uintptr_t csr_pass_any_lookup(long index) {
    CSRIMP next = csr_class_dispatchImplementation(csr_pass_any_superclasses[index], csr_pass_any_selectors[index]);
#if __has_feature(ptrauth_calls)
    return (uintptr_t)ptrauth_strip((void *)next, ptrauth_key_function_pointer);
#else
    return (uintptr_t)next;
#endif
}

// The assembler's syntax for symbols and local labels: the object format's (Mach-O on Apple, else ELF).
#if defined(__MACH__)
#define CSR_ASM_SYMBOL(name) "_" #name
#define CSR_ASM_LOCAL(name) "L" #name
#define CSR_ASM_DECLARE(name) ".private_extern _" #name "\n"
#else
#define CSR_ASM_SYMBOL(name) #name
#define CSR_ASM_LOCAL(name) ".L" #name
#define CSR_ASM_DECLARE(name) ".hidden " #name "\n.type " #name ", @function\n"
#endif

#if defined(__x86_64__)
/// Bytes between two entries (`movl $index, %r11d` and `jmp body`: 11 bytes, aligned to 16).
#define CSR_PASS_ANY_STRIDE 16
__asm__(
    ".text\n"
    ".globl " CSR_ASM_SYMBOL(csr_pass_any_entries) "\n"
    CSR_ASM_DECLARE(csr_pass_any_entries)
    ".p2align 4\n"
    CSR_ASM_SYMBOL(csr_pass_any_entries) ":\n"
    ".set csr_pass_any_index, 0\n"
    ".rept 128\n"                                   // CSR_PASS_THROUGH_CAPACITY (checked below)
    "  .p2align 4\n"
    "  movl $csr_pass_any_index, %r11d\n"
    "  jmp " CSR_ASM_LOCAL(csr_pass_any_body) "\n"
    "  .set csr_pass_any_index, csr_pass_any_index + 1\n"
    ".endr\n"
    CSR_ASM_LOCAL(csr_pass_any_body) ":\n"
    "  pushq %rbp\n"                                // a frame record: the stack stays walkable during the lookup
    "  movq %rsp, %rbp\n"
    "  subq $192, %rsp\n"                           // 16-byte aligned: the entry's %rsp was 8 past a multiple of 16
    "  movq %rdi, 0(%rsp)\n"
    "  movq %rsi, 8(%rsp)\n"
    "  movq %rdx, 16(%rsp)\n"
    "  movq %rcx, 24(%rsp)\n"
    "  movq %r8, 32(%rsp)\n"
    "  movq %r9, 40(%rsp)\n"
    "  movq %rax, 48(%rsp)\n"                       // %al: vector registers used by a variadic call
    "  movaps %xmm0, 64(%rsp)\n"
    "  movaps %xmm1, 80(%rsp)\n"
    "  movaps %xmm2, 96(%rsp)\n"
    "  movaps %xmm3, 112(%rsp)\n"
    "  movaps %xmm4, 128(%rsp)\n"
    "  movaps %xmm5, 144(%rsp)\n"
    "  movaps %xmm6, 160(%rsp)\n"
    "  movaps %xmm7, 176(%rsp)\n"
    "  movq %r11, %rdi\n"
    "  call " CSR_ASM_SYMBOL(csr_pass_any_lookup) "\n"
    "  movq %rax, %r11\n"
    "  movq 0(%rsp), %rdi\n"
    "  movq 8(%rsp), %rsi\n"
    "  movq 16(%rsp), %rdx\n"
    "  movq 24(%rsp), %rcx\n"
    "  movq 32(%rsp), %r8\n"
    "  movq 40(%rsp), %r9\n"
    "  movq 48(%rsp), %rax\n"
    "  movaps 64(%rsp), %xmm0\n"
    "  movaps 80(%rsp), %xmm1\n"
    "  movaps 96(%rsp), %xmm2\n"
    "  movaps 112(%rsp), %xmm3\n"
    "  movaps 128(%rsp), %xmm4\n"
    "  movaps 144(%rsp), %xmm5\n"
    "  movaps 160(%rsp), %xmm6\n"
    "  movaps 176(%rsp), %xmm7\n"
    "  movq %rbp, %rsp\n"
    "  popq %rbp\n"
    "  jmp *%r11\n"
);
#else
/// Bytes between two entries (`mov x9, #index` and `b body`).
#define CSR_PASS_ANY_STRIDE 8
__asm__(
    ".text\n"
    ".globl " CSR_ASM_SYMBOL(csr_pass_any_entries) "\n"
    CSR_ASM_DECLARE(csr_pass_any_entries)
    ".p2align 3\n"
    CSR_ASM_SYMBOL(csr_pass_any_entries) ":\n"
    ".set csr_pass_any_index, 0\n"
    ".rept 128\n"                                   // CSR_PASS_THROUGH_CAPACITY (checked below)
    "  mov x9, #csr_pass_any_index\n"               // x9: a scratch register (x16/x17 may be a veneer's)
    "  b " CSR_ASM_LOCAL(csr_pass_any_body) "\n"
    "  .set csr_pass_any_index, csr_pass_any_index + 1\n"
    ".endr\n"
    CSR_ASM_LOCAL(csr_pass_any_body) ":\n"
    "  stp x29, x30, [sp, #-16]!\n"                 // a frame record
    "  mov x29, sp\n"
    "  sub sp, sp, #208\n"
    "  stp x0, x1, [sp, #0]\n"
    "  stp x2, x3, [sp, #16]\n"
    "  stp x4, x5, [sp, #32]\n"
    "  stp x6, x7, [sp, #48]\n"
    "  str x8, [sp, #64]\n"                         // x8: the address of a struct returned in memory
    "  stp q0, q1, [sp, #80]\n"
    "  stp q2, q3, [sp, #112]\n"
    "  stp q4, q5, [sp, #144]\n"
    "  stp q6, q7, [sp, #176]\n"
    "  mov x0, x9\n"
    "  bl " CSR_ASM_SYMBOL(csr_pass_any_lookup) "\n"
    "  mov x9, x0\n"
    "  ldp q0, q1, [sp, #80]\n"
    "  ldp q2, q3, [sp, #112]\n"
    "  ldp q4, q5, [sp, #144]\n"
    "  ldp q6, q7, [sp, #176]\n"
    "  ldr x8, [sp, #64]\n"
    "  ldp x0, x1, [sp, #0]\n"
    "  ldp x2, x3, [sp, #16]\n"
    "  ldp x4, x5, [sp, #32]\n"
    "  ldp x6, x7, [sp, #48]\n"
    "  mov sp, x29\n"
    "  ldp x29, x30, [sp], #16\n"
    "  br x9\n"
);
#endif
_Static_assert(CSR_PASS_THROUGH_CAPACITY == 128, "the assembly has 128 entries (.rept)");

extern char csr_pass_any_entries[];

static CSRIMP csr_pass_any_entry(long index) {
    char *entry = csr_pass_any_entries + index * CSR_PASS_ANY_STRIDE;
#if __has_feature(ptrauth_calls)
    entry = ptrauth_strip(entry, ptrauth_key_function_pointer);
    return (CSRIMP)ptrauth_sign_unauthenticated(entry, ptrauth_key_function_pointer, 0);
#else
    return (CSRIMP)entry;
#endif
}

CSRIMP csr_pass_through_any(CSRClass cls, CSRSelector selector) {
    if (cls == NULL || selector == NULL) return NULL;
    long found = -1;
    pthread_mutex_lock(&csr_pass_any_lock);
    for (long index = 0; index < csr_pass_any_count && found < 0; index++) {
        if (csr_pass_any_classes[index] == cls && csr_sel_isEqual(csr_pass_any_selectors[index], selector)) found = index;
    }
    if (found < 0 && csr_pass_any_count < CSR_PASS_THROUGH_CAPACITY) {
        csr_pass_any_classes[csr_pass_any_count] = cls;
        csr_pass_any_selectors[csr_pass_any_count] = selector;
        csr_pass_any_superclasses[csr_pass_any_count] = csr_class_getSuperclass(cls);
        found = csr_pass_any_count;
        __atomic_store_n(&csr_pass_any_count, csr_pass_any_count + 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&csr_pass_any_lock);
    return found < 0 ? NULL : csr_pass_any_entry(found);
}

bool csr_is_pass_through_any(CSRIMP implementation) {
    long count = __atomic_load_n(&csr_pass_any_count, __ATOMIC_ACQUIRE);
    for (long index = 0; index < count; index++) if (csr_pass_any_entry(index) == implementation) return true;
    return false;
}

#else
CSRIMP csr_pass_through_any(CSRClass cls, CSRSelector selector) { (void)cls; (void)selector; return NULL; }
bool csr_is_pass_through_any(CSRIMP implementation) { (void)implementation; return false; }
#endif
