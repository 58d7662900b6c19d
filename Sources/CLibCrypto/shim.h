// OpenSSL 3 marks its one-call digest functions deprecated in favour of EVP,
// whose contexts are allocated on the heap for every digest (two allocations
// per call, measured). They remain in libcrypto 3, and a token is hashed on
// every request, so `tailor_sha256` uses them with a context on the stack.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

/// SHA-256 of `count` bytes at `message` into `digest` (32 bytes), allocating nothing.
static inline void tailor_sha256(const void *message, size_t count, unsigned char *digest) {
    SHA256_CTX context;
    SHA256_Init(&context);
    SHA256_Update(&context, message, count);
    SHA256_Final(digest, &context);
    OPENSSL_cleanse(&context, sizeof context);
}
