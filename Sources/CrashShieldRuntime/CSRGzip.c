// CSRGzip.c: see CSRGzip.h.
#include "CSRGzip.h"
#include <stdlib.h>
#include <zlib.h>

uint8_t *csr_gzip(const uint8_t *input, size_t length, size_t *outLength) {
    z_stream stream = {0};
    // windowBits 15 + 16: a gzip header and CRC-32/size trailer instead of zlib's own wrapper.
    if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return NULL;
    uLong bound = deflateBound(&stream, (uLong)length) + 32;
    uint8_t *output = malloc(bound);
    if (output == NULL) { deflateEnd(&stream); return NULL; }
    stream.next_in = (Bytef *)input;
    stream.avail_in = (uInt)length;
    stream.next_out = output;
    stream.avail_out = (uInt)bound;
    int status = deflate(&stream, Z_FINISH);
    *outLength = (size_t)stream.total_out;
    deflateEnd(&stream);
    if (status != Z_STREAM_END) { free(output); return NULL; }
    return output;
}
