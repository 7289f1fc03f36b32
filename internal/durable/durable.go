// Package durable writes files so that a crash or a power cut leaves the
// old content or the new one, never an empty or half-written file: the
// bytes go to a file beside the target, are flushed to disk (fsync), the
// file is renamed over the target and the folder is flushed too. chanto's
// own state — putback saves, the trust store, session metadata — is
// written this way.
package durable

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile replaces path with data, atomically and durably; perm is the
// file's mode. The side file is removed on failure.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	tmp.Close()
	if _, _, err := Write(name, bytes.NewReader(data), perm); err != nil {
		os.Remove(name)
		return err
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return err
	}
	return SyncDir(dir)
}

// Write creates (or truncates) path with content and mode, fsyncs it and
// returns the sha256 and length of what was written. It does not rename:
// callers that replace a file use WriteFile, or their own side-file name
// and SyncDir after the rename.
func Write(path string, content io.Reader, mode fs.FileMode) (string, int64, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return "", 0, err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), content)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = syncFile(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// SyncDir makes renames and creations inside dir durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = syncFile(d)
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// Sync flushes an open file (an append-only log after a record).
func Sync(f *os.File) error { return syncFile(f) }

// syncFile is f.Sync; the package's tests count the calls.
var syncFile = (*os.File).Sync
