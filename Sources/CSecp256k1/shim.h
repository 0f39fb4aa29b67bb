#ifndef HUB_CSECP256K1_SHIM_H
#define HUB_CSECP256K1_SHIM_H
#include <secp256k1.h>
#include <secp256k1_recovery.h>
#endif

#ifndef HUB_CSECP256K1_CONTEXT
#define HUB_CSECP256K1_CONTEXT
// The context flags are macros built from other macros, which Swift does not import.
static inline secp256k1_context *hub_secp256k1_context_create(void) {
    return secp256k1_context_create(SECP256K1_CONTEXT_SIGN | SECP256K1_CONTEXT_VERIFY);
}
#endif
