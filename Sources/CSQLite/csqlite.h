/* SQLite's C API (Debian's libsqlite3), for the face gallery. SQLITE_TRANSIENT is a cast macro Swift
   cannot import, so it is given here as a function. */
#include <sqlite3.h>

static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }
