#ifndef HUB_CXXHASH_SHIM_H
#define HUB_CXXHASH_SHIM_H
#include <xxhash.h>
#endif
