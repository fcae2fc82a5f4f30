//go:build desktop && linux

package app

/*
#cgo linux pkg-config: gtk+-3.0
#include <stdint.h>
void agentdeck_clipboard_read(uintptr_t id);
*/
import "C"

import (
	"context"
	"errors"
	"runtime/cgo"
	"unsafe"
)

// WindowClipboard is the Linux window's clipboard: it reads a copied
// image through GTK, on GTK's thread (clipboard_gtk.c), for the paste
// WebKitGTK hands the page empty. Only a running window may use it: GTK
// must be started.
func WindowClipboard() Clipboard { return gtkClipboard{} }

type gtkClipboard struct{}

// clipboardReply is one read's answer from GTK's thread.
type clipboardReply struct {
	data []byte
	err  error
}

func (gtkClipboard) Image(ctx context.Context) ([]byte, error) {
	// C holds a handle, never a Go pointer. GTK answers every read, even
	// one whose owner never replies (after its own wait), and the answer
	// deletes the handle; the channel's room means it never waits.
	reply := make(chan clipboardReply, 1)
	C.agentdeck_clipboard_read(C.uintptr_t(cgo.NewHandle(reply)))
	select {
	case r := <-reply:
		return r.data, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// agentdeckClipboardDone answers read id, on GTK's thread: the image's
// bytes (copied before GTK frees them), no bytes for no image, or why the
// read failed. The answer to a read given up on waits in its channel,
// unread.
//
//export agentdeckClipboardDone
func agentdeckClipboardDone(id C.uintptr_t, data *C.char, n C.int, failed *C.char) {
	var r clipboardReply
	switch {
	case failed != nil:
		r.err = errors.New(C.GoString(failed))
	case data != nil:
		r.data = C.GoBytes(unsafe.Pointer(data), n)
	}
	h := cgo.Handle(id)
	h.Value().(chan clipboardReply) <- r
	h.Delete()
}
