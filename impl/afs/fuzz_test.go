package afs_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/conform-mcp/conform/impl/afs"
)

// FuzzListCursor holds a paged listing to its promise for any cursor: no
// panic, no entry of a closed path, and a page that starts right after the
// cursor's place in the whole listing.
func FuzzListCursor(f *testing.F) {
	for _, seed := range []string{"", "/open", "/open/a", "/open/a/y", "/open/a-b", "/open/zz", "/open/secret/x", "/", "/open/a/y/z/deeper"} {
		f.Add(seed, 2)
	}
	now := func() time.Time { return time.Time{} }
	open, err := afs.NewMemory(map[string]string{"a/x": "1", "a/y/z": "2", "a-b": "3", "b": "4", "c/d/e": "5"}, now)
	if err != nil {
		f.Fatal(err)
	}
	closed, err := afs.NewMemory(map[string]string{"x": "secret"}, now)
	if err != nil {
		f.Fatal(err)
	}
	// "/ope[n]" opens /open itself and nothing beneath it, so that
	// /open/secret, a mount among the listed names, stays closed.
	fsys, err := afs.New([]afs.Mount{{Path: "/open", Provider: open}, {Path: "/open/secret", Provider: closed}},
		[]string{"/ope[n]", "/open/a", "/open/a-b", "/open/b", "/open/c"}, afs.Limits{})
	if err != nil {
		f.Fatal(err)
	}
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, cursor string, limit int) {
		limit = 1 + min(max(limit, 0), 8)
		all, err := fsys.List(ctx, "/open", afs.ListOptions{Depth: 4, Limit: afs.MaxListLimit})
		if err != nil {
			t.Fatal(err)
		}
		page, err := fsys.List(ctx, "/open", afs.ListOptions{Depth: 4, Limit: limit, Cursor: cursor})
		if err != nil {
			t.Fatalf("cursor %q: %v", cursor, err)
		}
		var paths []string
		for _, e := range page.Entries {
			if strings.HasPrefix(e.Path, "/open/secret") {
				t.Fatalf("cursor %q: a closed path is listed: %s", cursor, e.Path)
			}
			paths = append(paths, e.Path)
		}
		var wholePaths []string
		for _, e := range all.Entries {
			wholePaths = append(wholePaths, e.Path)
		}
		// The page is a run of the whole listing.
		if len(paths) > 0 {
			i := slices.Index(wholePaths, paths[0])
			if i < 0 || !slices.Equal(wholePaths[i:min(i+len(paths), len(wholePaths))], paths) {
				t.Fatalf("cursor %q: page %v is not a run of %v", cursor, paths, wholePaths)
			}
			if i > 0 && slices.Contains(wholePaths, cursor) && wholePaths[i-1] != cursor {
				t.Fatalf("cursor %q: page starts at %s, not right after the cursor", cursor, paths[0])
			}
		}
	})
}
