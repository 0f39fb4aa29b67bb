#ifndef HUB_CSODIUM_SHIM_H
#define HUB_CSODIUM_SHIM_H
#include <sodium.h>
#endif
