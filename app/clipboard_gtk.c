//go:build desktop && linux

// The window's clipboard on Linux: reads the image a user copied, which
// WebKitGTK does not hand to the page (clipboard_gtk.go). GTK is called
// on its own thread only: each read starts from g_idle_add.

#include <gtk/gtk.h>
#include <string.h>
#include "_cgo_export.h"

// The types a model reads, in the order they are preferred: the owner's
// own bytes, unchanged. Any other image comes as GTK reads it, as PNG.
static const char *wanted[] = {"image/png", "image/jpeg", "image/webp", "image/gif", NULL};

static void got_contents(GtkClipboard *cb, GtkSelectionData *sel, gpointer id) {
	const guchar *data = gtk_selection_data_get_data(sel);
	gint len = gtk_selection_data_get_length(sel);
	if (data == NULL || len <= 0) {
		agentdeckClipboardDone((uintptr_t)id, NULL, 0, (char *)"the program that copied the image handed over nothing");
		return;
	}
	agentdeckClipboardDone((uintptr_t)id, (char *)data, len, NULL);
}

static void got_image(GtkClipboard *cb, GdkPixbuf *pixbuf, gpointer id) {
	if (pixbuf == NULL) {
		agentdeckClipboardDone((uintptr_t)id, NULL, 0, NULL);
		return;
	}
	gchar *buf = NULL;
	gsize n = 0;
	GError *err = NULL;
	if (!gdk_pixbuf_save_to_buffer(pixbuf, &buf, &n, "png", &err, NULL)) {
		agentdeckClipboardDone((uintptr_t)id, NULL, 0, err ? err->message : (char *)"the image could not be made a PNG");
		if (err) g_error_free(err);
		return;
	}
	agentdeckClipboardDone((uintptr_t)id, buf, (int)n, NULL);
	g_free(buf);
}

static void got_targets(GtkClipboard *cb, GdkAtom *atoms, gint n, gpointer id) {
	for (int w = 0; wanted[w] != NULL; w++) {
		for (int i = 0; i < n; i++) {
			gchar *name = gdk_atom_name(atoms[i]);
			gboolean match = strcmp(name, wanted[w]) == 0;
			g_free(name);
			if (match) {
				gtk_clipboard_request_contents(cb, atoms[i], got_contents, id);
				return;
			}
		}
	}
	if (atoms != NULL && gtk_targets_include_image(atoms, n, FALSE)) {
		gtk_clipboard_request_image(cb, got_image, id);
		return;
	}
	agentdeckClipboardDone((uintptr_t)id, NULL, 0, NULL); // no image
}

static gboolean start_read(gpointer id) {
	GtkClipboard *cb = gtk_clipboard_get(GDK_SELECTION_CLIPBOARD);
	gtk_clipboard_request_targets(cb, got_targets, id);
	return G_SOURCE_REMOVE;
}

void agentdeck_clipboard_read(uintptr_t id) {
	g_idle_add(start_read, (gpointer)id);
}
