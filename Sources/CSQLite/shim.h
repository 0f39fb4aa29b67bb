#ifndef HUB_CSQLITE_SHIM_H
#define HUB_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro Swift cannot import: it tells SQLite to copy bound bytes.
static inline sqlite3_destructor_type hub_sqlite_transient(void) { return SQLITE_TRANSIENT; }

// sqlite3_db_config is variadic; Swift cannot call it directly.
static inline int hub_sqlite_enable_defensive(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
}
#endif
