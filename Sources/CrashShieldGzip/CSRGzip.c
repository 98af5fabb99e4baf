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

uint8_t *csr_gunzip(const uint8_t *input, size_t length, size_t limit, size_t *outLength) {
    z_stream stream = {0};
    // windowBits 15 + 32: a gzip or zlib header, detected.
    if (inflateInit2(&stream, 15 + 32) != Z_OK) return NULL;
    size_t capacity = length * 4 + 1024;
    if (capacity > limit) capacity = limit;
    uint8_t *output = malloc(capacity);
    if (output == NULL) { inflateEnd(&stream); return NULL; }
    stream.next_in = (Bytef *)input;
    stream.avail_in = (uInt)length;
    int status;
    do {
        if (stream.total_out == capacity) {
            if (capacity >= limit) { status = Z_MEM_ERROR; break; }
            size_t grown = capacity * 2 > limit ? limit : capacity * 2;
            uint8_t *bigger = realloc(output, grown);
            if (bigger == NULL) { status = Z_MEM_ERROR; break; }
            output = bigger;
            capacity = grown;
        }
        stream.next_out = output + stream.total_out;
        stream.avail_out = (uInt)(capacity - stream.total_out);
        status = inflate(&stream, Z_NO_FLUSH);
    } while (status == Z_OK);
    *outLength = (size_t)stream.total_out;
    inflateEnd(&stream);
    if (status != Z_STREAM_END) { free(output); return NULL; }
    return output;
}
