#ifndef HUB_CZSTD_SHIM_H
#define HUB_CZSTD_SHIM_H
#include <zstd.h>
#endif
