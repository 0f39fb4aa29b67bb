#ifndef HUB_CLIBPQ_SHIM_H
#define HUB_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#endif
