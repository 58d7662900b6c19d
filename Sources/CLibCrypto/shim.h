#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
