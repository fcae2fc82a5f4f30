// Package workspace gives an agent file tools (list_files, read_file,
// write_file) confined to one folder, the workspace.
//
// # Paths
//
// Every path a tool receives goes through one gate, Resolve (the tools call
// its internal form, check, which also returns the link-resolved location).
// A path is refused, with an error that names it and says why, when:
//
//   - it is empty or contains a NUL byte;
//   - it is absolute: /etc/passwd, and on every platform also the Windows
//     forms C:\x, C:x and \\server\share, since a model that sends those
//     never means a file in the workspace; ~ and ~/x are refused too, as ~
//     is never expanded;
//   - after lexical cleaning (filepath.Clean), its .. components climb above
//     the workspace folder: "../x", "a/../../x". "a/../b" is simply "b";
//   - following its links, the way the OS would (a link's target is spliced
//     in and later .. components apply to it), leaves the workspace at any
//     step: "X is a link that leads outside the workspace". Links with an
//     absolute target are refused even when they point inside, and so are
//     chains of more than 8 links, because os.Root refuses both; so is a
//     target that goes into a missing folder and back out with .., which
//     os.Root cannot follow either.
//
// The check is a courtesy that gives the model a clear reason. The guarantee
// is os.Root: every file operation goes through an os.Root opened on the
// workspace, which refuses, at the OS level and at the moment of use, any
// path or link that leaves it. So a link swapped in after the check still
// cannot lead out; the model then gets "it leads outside the workspace".
// (os.Root does not stop bind mounts or hard links made by someone else;
// that is the user's own file system, not the model's doing.)
//
// # Files
//
//   - The workspace root is stored absolute and symlink-resolved. Each tool
//     call opens its own os.Root on that path and closes it when done, so a
//     Workspace holds no file descriptor, needs no Close, and the check and
//     the operation always see the same folder even if the user renames it.
//   - read_file returns text only. A file is binary, and refused, if its
//     first 8 KB hold a NUL byte or are not valid UTF-8, or a line it would
//     return is not valid UTF-8. At most Limits.MaxReadBytes are returned; a
//     larger file can be read by line range when the range fits.
//   - write_file refuses content over Limits.MaxWriteBytes. It writes a
//     temporary file in the target's folder, syncs it, and moves it into
//     place with os.Root.Rename (Go 1.25+), so a reader never sees half a
//     file. In "create" mode the move is os.Root.Link, which fails if the
//     name was taken meanwhile, so an existing file is never replaced; if
//     the file system has no hard links it falls back to a checked Rename.
//     Writing through a link inside the workspace replaces the link's
//     target, not the link. Missing parent folders are created.
//   - list_files lists in name order within each folder, a folder's entries
//     right after it. It stops at Limits.MaxListEntries with a note, and does
//     not go into .git unless asked to list it by path.
//
// A Workspace is immutable after New and safe for concurrent use; two
// writes to the same file race, and the last rename wins.
package workspace
