package selecttest

/*
#include <stdlib.h>
// tree-sitter's own entry point (linked from go-tree-sitter's C sources).
void ts_set_allocator(void *(*new_malloc)(size_t), void *(*new_calloc)(size_t, size_t),
	void *(*new_realloc)(void *, size_t), void (*new_free)(void *));
static void chanto_ts_libc_allocator(void) { ts_set_allocator(malloc, calloc, realloc, free); }
*/
import "C"

import "sync"

// useLibcAllocator makes tree-sitter allocate with libc directly.
// go-tree-sitter routes every allocation through a Go callback (so a Go
// program may swap allocators), which costs two cgo crossings per malloc
// and free: a fifth of a Python file's parse time.
var useLibcAllocator = sync.OnceFunc(func() { C.chanto_ts_libc_allocator() })
