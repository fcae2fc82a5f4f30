package store

// SetDiskFree replaces the measure of free space beside db's file, for the
// tests of package store_test that cannot mount a small disk.
func SetDiskFree(db *DB, free func(dir string) (int64, error)) { db.diskFree = free }
