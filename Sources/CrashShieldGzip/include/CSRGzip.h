// CSRGzip.h: gzip (RFC 1952) compression of upload bodies through zlib's C API.
// Foundation offers no gzip on either platform: swift-corelibs-foundation has no compression API, and Apple's
// NSData.compressed(using: .zlib) (iOS 13) writes raw DEFLATE without the gzip header and trailer. zlib ships with
// both (Apple: libz in the SDK; Linux: zlib1g), so one small C function serves both.
#ifndef CSR_GZIP_H
#define CSR_GZIP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Compresses `length` bytes at `input` into a gzip member. On success returns a malloc'd buffer (free it with
/// `free`) and stores its size in `outLength`; returns NULL when zlib fails or memory runs out.
uint8_t *csr_gzip(const uint8_t *input, size_t length, size_t *outLength);

/// Decompresses a gzip (or zlib) stream of `length` bytes into at most `limit` bytes. Returns a malloc'd buffer (free
/// it with `free`) and its size in `outLength`; NULL when the data is not a whole stream or is larger than `limit`.
uint8_t *csr_gunzip(const uint8_t *input, size_t length, size_t limit, size_t *outLength);

#ifdef __cplusplus
}
#endif

#endif
