package protect

/*
#include <stdlib.h>
void ts_set_allocator(void *(*)(size_t), void *(*)(size_t, size_t), void *(*)(void *, size_t), void (*)(void *));
static void protect_use_libc_allocator(void) { ts_set_allocator(malloc, calloc, realloc, free); }
*/
import "C"

import (
	_ "github.com/tree-sitter/go-tree-sitter" // links ts_set_allocator
)

// The Go binding routes every tree-sitter allocation through a Go callback
// that only calls libc; calling libc directly makes parsing several times
// faster. Both paths use the same malloc and free, so memory allocated
// before the switch is still freed correctly.
func init() { C.protect_use_libc_allocator() }
