// Package baseline tells new failures from ones that were already there: a
// full-scope baseline runs in a throwaway copy of the base tree, a
// related-scope one puts the changed files back to their base bytes for
// one run and restores them. Putback is crash-safe: the changed versions are
// saved under ~/.chanto/history/putback/ first, a watcher process restores
// them if chanto dies, and the next start recovers anything left.
package baseline
