// GLib alone (pkg-config glib-2.0), for its SHA-256: already linked by every build through libvips, and WarmSupport
// reaches it without linking libvips.
#include <glib.h>
